package main

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/gorilla/websocket"
)

type EchoOptions struct {
	URL         string
	Connections int
	Size        int
	Binary      bool
	Warmup      time.Duration
	Duration    time.Duration
}

// EchoReport counts only messages sent inside the measured window (after the warm-up).
type EchoReport struct {
	Mode         string  `json:"mode"`
	Connections  int     `json:"connections"`
	MessageBytes int     `json:"message_bytes"`
	Binary       bool    `json:"binary"`
	WarmupS      float64 `json:"warmup_s"`
	DurationS    float64 `json:"duration_s"`
	Sent         int     `json:"sent"`
	Received     int     `json:"received"`
	Mismatched   int     `json:"mismatched"`
	// WarmupMismatched counts wrong echoes during the warm-up, which a server must not send either.
	WarmupMismatched int            `json:"warmup_mismatched"`
	MessagesPerS     float64        `json:"messages_per_s"`
	RttUs            Percentiles    `json:"rtt_us"`
	ClientCPU        CPU            `json:"client_cpu"`
	CloseAnswered    int            `json:"close_answered"`
	Errors           map[string]int `json:"errors"`
	// FirstMismatch shows the first echo that differed from what was sent.
	FirstMismatch *Mismatch `json:"first_mismatch,omitempty"`
}

type Mismatch struct {
	Connection int    `json:"connection"`
	Sequence   uint64 `json:"sequence"`
	SentBytes  int    `json:"sent_bytes"`
	GotBytes   int    `json:"got_bytes"`
	GotType    string `json:"got_type"`
	FirstDiff  int    `json:"first_differing_byte"`
}

func checkSize(size int) error {
	if size < headerSize {
		return fmt.Errorf("message size %d is below %d bytes (the header that names each message)", size, headerSize)
	}
	return nil
}

type echoConnection struct {
	sent, received, mismatched int
	warmupMismatched           int
	rtts                       []int64
	closeAnswered              bool
	mismatch                   *Mismatch
}

// RunEcho keeps one message in flight per connection: send, wait for the echo, compare it byte
// for byte, send the next. Round trips are timed on the monotonic clock.
func RunEcho(options EchoOptions) (*EchoReport, error) {
	if options.URL == "" || options.Connections < 1 {
		return nil, errors.New("echo needs -url and at least one connection")
	}
	if err := checkSize(options.Size); err != nil {
		return nil, err
	}
	conns := make([]*echoConnection, options.Connections)
	var errs errorTally
	var ready, done sync.WaitGroup
	start := make(chan struct{})
	var measureStart, end int64
	for i := range conns {
		conns[i] = &echoConnection{}
		ready.Add(1)
		done.Add(1)
		go func(index int, state *echoConnection) {
			defer done.Done()
			conn, err := dial(options.URL, options.Size)
			ready.Done()
			if err != nil {
				errs.add(err)
				return
			}
			<-start
			state.run(conn, index, options, measureStart, end, &errs)
		}(i, conns[i])
	}
	ready.Wait()
	measureStart = monotonic() + int64(options.Warmup)
	end = measureStart + int64(options.Duration)
	close(start)
	time.Sleep(time.Duration(measureStart - monotonic()))
	cpu := markCPU()
	done.Wait()
	clientCPU := cpu.since()

	report := &EchoReport{
		Mode: "echo", Connections: options.Connections, MessageBytes: options.Size, Binary: options.Binary,
		WarmupS: options.Warmup.Seconds(), DurationS: options.Duration.Seconds(), ClientCPU: clientCPU,
	}
	var rtts []int64
	for _, state := range conns {
		report.Sent += state.sent
		report.Received += state.received
		report.Mismatched += state.mismatched
		report.WarmupMismatched += state.warmupMismatched
		if state.closeAnswered {
			report.CloseAnswered++
		}
		if report.FirstMismatch == nil {
			report.FirstMismatch = state.mismatch
		}
		rtts = append(rtts, state.rtts...)
	}
	report.RttUs = percentiles(rtts)
	report.MessagesPerS = round(float64(report.Received-report.Mismatched)/options.Duration.Seconds(), 1)
	report.Errors = errs.snapshot()
	return report, nil
}

// run sends until `end`. A round trip that began inside the window counts even if its echo
// arrives just after it, so the window holds whole round trips only.
func (state *echoConnection) run(conn *websocket.Conn, index int, options EchoOptions, measureStart, end int64, errs *errorTally) {
	defer func() { state.closeAnswered = closeGracefully(conn, 5*time.Second) }()
	kind := messageType(options.Binary)
	filler := newPattern(options.Size, options.Binary, int64(index)+1)
	message := make([]byte, options.Size)
	buffer := make([]byte, options.Size+1024)
	_ = conn.SetReadDeadline(time.Now().Add(time.Duration(end-monotonic()) + 10*time.Second))
	for seq := uint64(0); ; seq++ {
		sentAt := monotonic()
		if sentAt >= end {
			return
		}
		measured := sentAt >= measureStart
		filler.fill(message, uint32(index), seq)
		if measured {
			state.sent++
		}
		if err := conn.WriteMessage(kind, message); err != nil {
			errs.add(fmt.Errorf("send: %w", err))
			return
		}
		var got []byte
		var gotKind int
		var err error
		gotKind, buffer, err = readInto(conn, buffer)
		rtt := monotonic() - sentAt
		if err != nil {
			errs.add(fmt.Errorf("receive: %w", err))
			return
		}
		got = buffer
		if measured {
			state.received++
			state.rtts = append(state.rtts, rtt)
		}
		if gotKind != kind || string(got) != string(message) {
			if measured {
				state.mismatched++
			} else {
				state.warmupMismatched++
			}
			if state.mismatch == nil {
				state.mismatch = describeMismatch(index, seq, message, got, gotKind)
			}
		}
	}
}

func describeMismatch(index int, seq uint64, sent, got []byte, gotKind int) *Mismatch {
	first := 0
	for first < len(sent) && first < len(got) && sent[first] == got[first] {
		first++
	}
	return &Mismatch{Connection: index, Sequence: seq, SentBytes: len(sent), GotBytes: len(got), GotType: kindName(gotKind), FirstDiff: first}
}

func kindName(kind int) string {
	switch kind {
	case websocket.TextMessage:
		return "text"
	case websocket.BinaryMessage:
		return "binary"
	}
	return fmt.Sprintf("opcode %d", kind)
}
