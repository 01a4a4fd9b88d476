package main

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"
)

type BroadcastOptions struct {
	URL       string
	Receivers int
	Size      int
	Binary    bool
	Window    int
	Warmup    time.Duration
	Duration  time.Duration
}

// BroadcastReport counts deliveries: one message reaching one receiver. Only messages sent
// inside the measured window count.
type BroadcastReport struct {
	Mode         string  `json:"mode"`
	Receivers    int     `json:"receivers"`
	MessageBytes int     `json:"message_bytes"`
	Binary       bool    `json:"binary"`
	Window       int     `json:"window"`
	WarmupS      float64 `json:"warmup_s"`
	DurationS    float64 `json:"duration_s"`
	// Sent is messages the sender sent in the window; Expected is Sent × receivers.
	Sent     int `json:"sent"`
	Expected int `json:"expected_deliveries"`
	// Received is deliveries that arrived; Mismatched those that were not the next message,
	// byte for byte (a duplicate, a skipped or a corrupted one).
	Received   int `json:"received"`
	Mismatched int `json:"mismatched"`
	// WarmupMismatched counts wrong deliveries during the warm-up, which a server must not make either.
	WarmupMismatched int     `json:"warmup_mismatched"`
	SenderReceived   int     `json:"sender_received"`
	MessagesPerS     float64 `json:"messages_per_s"`
	// DeliveryUs is the time from sending a message to its arrival at the last receiver.
	DeliveryUs    Percentiles    `json:"delivery_us"`
	ClientCPU     CPU            `json:"client_cpu"`
	CloseAnswered int            `json:"close_answered"`
	Errors        map[string]int `json:"errors"`
}

// Probes fill the room before measuring: the sender repeats one until every receiver has seen
// it, so no receiver joins late. They carry this connection number and are otherwise ignored.
const probeConn = 0xffff

type slot struct {
	sentAt    atomic.Int64
	remaining atomic.Int32
}

type delivered struct {
	seq uint64
	at  int64
}

type receiver struct {
	conn               *websocket.Conn
	mismatched         int
	measuredReceived   int
	measuredMismatched int
	sawProbe           chan struct{}
	closeAnswered      bool
}

// RunBroadcast has one sender and N receivers in one room. The sender keeps `window` messages in
// flight: it sends the next when the oldest has reached every receiver. Each receiver checks
// that it gets every message exactly once, in order, byte for byte.
func RunBroadcast(options BroadcastOptions) (*BroadcastReport, error) {
	if options.URL == "" || options.Receivers < 1 || options.Window < 1 {
		return nil, errors.New("broadcast needs -url, at least one receiver and a window of at least 1")
	}
	if err := checkSize(options.Size); err != nil {
		return nil, err
	}
	sender, err := dial(options.URL, options.Size)
	if err != nil {
		return nil, err
	}
	receivers := make([]*receiver, options.Receivers)
	for i := range receivers {
		conn, err := dial(options.URL, options.Size)
		if err != nil {
			for _, r := range receivers[:i] {
				r.conn.Close()
			}
			sender.Close()
			return nil, err
		}
		receivers[i] = &receiver{conn: conn, sawProbe: make(chan struct{})}
	}

	kind := messageType(options.Binary)
	filler := newPattern(options.Size, options.Binary, 1)
	slots := make([]slot, options.Window)
	done := make(chan delivered, options.Window*2)
	var errs errorTally
	var measureStart, end atomic.Int64
	measureStart.Store(1 << 62)
	end.Store(1 << 62)

	var receiving sync.WaitGroup
	for _, r := range receivers {
		receiving.Add(1)
		go func(r *receiver) {
			defer receiving.Done()
			r.receive(options, kind, filler, slots, done, &measureStart, &errs)
		}(r)
	}
	// The sender must get none of its own messages back; count any it does.
	var senderReceived atomic.Int64
	senderDone := make(chan struct{})
	go func() {
		defer close(senderDone)
		for {
			if _, _, err := sender.NextReader(); err != nil {
				return
			}
			senderReceived.Add(1)
		}
	}()

	report := &BroadcastReport{
		Mode: "broadcast", Receivers: options.Receivers, MessageBytes: options.Size, Binary: options.Binary,
		Window: options.Window, WarmupS: options.Warmup.Seconds(), DurationS: options.Duration.Seconds(),
	}
	var latencies []int64
	var cpu CPU
	err = func() error {
		if err := fillRoom(sender, receivers, kind, filler, options.Size); err != nil {
			return err
		}
		measureStart.Store(monotonic() + int64(options.Warmup))
		end.Store(measureStart.Load() + int64(options.Duration))
		message := make([]byte, options.Size)
		// The client's CPU is counted from the first message sent inside the measured window.
		var mark cpuMark
		marked := false
		send := func(seq uint64) error {
			s := &slots[seq%uint64(options.Window)]
			s.remaining.Store(int32(options.Receivers))
			sentAt := monotonic()
			s.sentAt.Store(sentAt)
			if sentAt >= measureStart.Load() {
				if !marked {
					mark, marked = markCPU(), true
				}
				report.Sent++
			}
			filler.fill(message, 0, seq)
			return sender.WriteMessage(kind, message)
		}
		var next uint64
		for ; next < uint64(options.Window); next++ {
			if err := send(next); err != nil {
				return fmt.Errorf("send: %w", err)
			}
		}
		for outstanding := options.Window; outstanding > 0; outstanding-- {
			select {
			case d := <-done:
				sentAt := slots[d.seq%uint64(options.Window)].sentAt.Load()
				if sentAt >= measureStart.Load() {
					latencies = append(latencies, d.at-sentAt)
				}
				if monotonic() < end.Load() {
					if err := send(next); err != nil {
						return fmt.Errorf("send: %w", err)
					}
					next++
					outstanding++
				}
			case <-time.After(5 * time.Second):
				return fmt.Errorf("stalled: message %d had not reached every receiver after 5 s", next-uint64(outstanding))
			}
		}
		if marked {
			cpu = mark.since()
		}
		return nil
	}()
	if err != nil {
		errs.add(err)
	}

	// Receivers read until the server answers their close frame; the sender likewise.
	deadline := time.Now().Add(5 * time.Second)
	closeFrame := websocket.FormatCloseMessage(websocket.CloseNormalClosure, "")
	for _, r := range receivers {
		_ = r.conn.SetReadDeadline(deadline)
		_ = r.conn.WriteControl(websocket.CloseMessage, closeFrame, deadline)
	}
	_ = sender.SetReadDeadline(deadline)
	_ = sender.WriteControl(websocket.CloseMessage, closeFrame, deadline)
	receiving.Wait()
	<-senderDone
	sender.Close()

	report.ClientCPU = cpu
	report.Expected = report.Sent * options.Receivers
	good := 0
	for _, r := range receivers {
		report.Received += r.measuredReceived
		report.Mismatched += r.measuredMismatched
		report.WarmupMismatched += r.mismatched - r.measuredMismatched
		good += r.measuredReceived - r.measuredMismatched
		if r.closeAnswered {
			report.CloseAnswered++
		}
	}
	report.SenderReceived = int(senderReceived.Load())
	report.DeliveryUs = percentiles(latencies)
	report.MessagesPerS = round(float64(good)/options.Duration.Seconds(), 1)
	report.Errors = errs.snapshot()
	return report, nil
}

// fillRoom sends probes until every receiver has seen one.
func fillRoom(sender *websocket.Conn, receivers []*receiver, kind int, filler pattern, size int) error {
	probe := make([]byte, size)
	deadline := time.Now().Add(10 * time.Second)
	for seq := uint64(0); ; seq++ {
		filler.fill(probe, probeConn, seq)
		if err := sender.WriteMessage(kind, probe); err != nil {
			return fmt.Errorf("send probe: %w", err)
		}
		time.Sleep(20 * time.Millisecond)
		waiting := 0
		for _, r := range receivers {
			select {
			case <-r.sawProbe:
			default:
				waiting++
			}
		}
		if waiting == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%d of %d receivers got none of the sender's messages within 10 s", waiting, len(receivers))
		}
	}
}

func (r *receiver) receive(options BroadcastOptions, kind int, filler pattern, slots []slot, done chan<- delivered, measureStart *atomic.Int64, errs *errorTally) {
	buffer := make([]byte, options.Size+1024)
	var expected uint64
	probed := false
	for {
		var gotKind int
		var err error
		gotKind, buffer, err = readInto(r.conn, buffer)
		at := monotonic()
		if err != nil {
			var closeError *websocket.CloseError
			if errors.As(err, &closeError) {
				r.closeAnswered = true
			} else {
				errs.add(fmt.Errorf("receive: %w", err))
			}
			return
		}
		conn, seq, ok := readHeader(buffer)
		if ok && conn == probeConn {
			if !probed {
				probed = true
				close(r.sawProbe)
			}
			continue
		}
		// Only the next message's slot is known to be in flight; anything else is wrong anyway.
		named := ok && conn == 0 && seq == expected
		measured := named && slots[seq%uint64(len(slots))].sentAt.Load() >= measureStart.Load()
		if measured {
			r.measuredReceived++
		}
		if !named || gotKind != kind || !filler.matches(buffer, options.Size, 0, seq) {
			r.mismatched++
			if measured {
				r.measuredMismatched++
			}
			if !named {
				if ok && conn == 0 && seq > expected {
					expected = seq + 1 // a skip: the skipped messages stall the sender, which reports it
				}
				continue
			}
		}
		expected++
		if slots[seq%uint64(len(slots))].remaining.Add(-1) == 0 {
			done <- delivered{seq: seq, at: at}
		}
	}
}
