package main

import (
	"errors"
	"fmt"
	"io"
	"math/rand"
	"net/http"
	"runtime/debug"
	"sort"
	"sync"
	"syscall"
	"time"

	"github.com/gorilla/websocket"
)

var gorillaVersion = func() string {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, dep := range info.Deps {
			if dep.Path == "github.com/gorilla/websocket" {
				return dep.Version
			}
		}
	}
	return "unknown"
}()

// headerSize is the part of every load message that names it: 16 hex digits of connection and
// sequence number, so no two messages a connection sends are alike and a cached echo fails.
const headerSize = 16

// pattern is the filler that follows the header, read at an offset that moves with the sequence
// number: every byte of consecutive messages differs, without generating 64 KiB per message.
type pattern struct {
	bytes []byte
}

const patternShift = 251

func newPattern(size int, binary bool, seed int64) pattern {
	random := rand.New(rand.NewSource(seed))
	bytes := make([]byte, size+patternShift)
	const letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 "
	for i := range bytes {
		if binary {
			bytes[i] = byte(random.Intn(256))
		} else {
			bytes[i] = letters[random.Intn(len(letters))]
		}
	}
	return pattern{bytes}
}

// fill writes message `seq` of connection `conn` into message (its length is the message size).
func (p pattern) fill(message []byte, conn uint32, seq uint64) {
	writeHeader(message, conn, seq)
	offset := int(seq % patternShift)
	copy(message[headerSize:], p.bytes[offset:offset+len(message)-headerSize])
}

// matches tells whether got is exactly message `seq` of connection `conn`, without building it.
func (p pattern) matches(got []byte, size int, conn uint32, seq uint64) bool {
	if len(got) != size {
		return false
	}
	var header [headerSize]byte
	writeHeader(header[:], conn, seq)
	offset := int(seq % patternShift)
	return string(got[:headerSize]) == string(header[:]) && string(got[headerSize:]) == string(p.bytes[offset:offset+size-headerSize])
}

const hexDigits = "0123456789abcdef"

func writeHeader(message []byte, conn uint32, seq uint64) {
	value := uint64(conn)<<40 | seq&(1<<40-1)
	for i := headerSize - 1; i >= 0; i-- {
		message[i] = hexDigits[value&15]
		value >>= 4
	}
}

// readHeader returns the sequence number a header names, or false when it is no header.
func readHeader(message []byte) (conn uint32, seq uint64, ok bool) {
	if len(message) < headerSize {
		return 0, 0, false
	}
	var value uint64
	for _, c := range message[:headerSize] {
		switch {
		case c >= '0' && c <= '9':
			value = value<<4 | uint64(c-'0')
		case c >= 'a' && c <= 'f':
			value = value<<4 | uint64(c-'a'+10)
		default:
			return 0, 0, false
		}
	}
	return uint32(value >> 40), value & (1<<40 - 1), true
}

func messageType(binary bool) int {
	if binary {
		return websocket.BinaryMessage
	}
	return websocket.TextMessage
}

// dial opens one connection whose buffers hold a whole message, so each message goes out as one
// frame (a 4 KiB write buffer would split 64 KiB into continuation frames).
func dial(url string, size int) (*websocket.Conn, error) {
	dialer := websocket.Dialer{
		HandshakeTimeout: 10 * time.Second,
		ReadBufferSize:   size + 1024,
		WriteBufferSize:  size + 1024,
	}
	conn, response, err := dialer.Dial(url, http.Header{})
	if err != nil {
		if response != nil {
			return nil, fmt.Errorf("handshake with %s: %w (HTTP %d)", url, err, response.StatusCode)
		}
		return nil, fmt.Errorf("handshake with %s: %w", url, err)
	}
	return conn, nil
}

// readInto reads one whole message into buffer, growing it when a message is larger.
func readInto(conn *websocket.Conn, buffer []byte) (int, []byte, error) {
	kind, reader, err := conn.NextReader()
	if err != nil {
		return 0, buffer, err
	}
	n := 0
	for {
		if n == len(buffer) {
			grown := make([]byte, 2*len(buffer)+1024)
			copy(grown, buffer[:n])
			buffer = grown
		}
		read, err := reader.Read(buffer[n:])
		n += read
		if errors.Is(err, io.EOF) {
			return kind, buffer[:n], nil
		}
		if err != nil {
			return kind, buffer, err
		}
	}
}

// closeGracefully sends a close frame and waits for the server's, as a well-behaved client does.
// Only for a connection nothing else reads from.
func closeGracefully(conn *websocket.Conn, timeout time.Duration) (answered bool) {
	defer conn.Close()
	deadline := time.Now().Add(timeout)
	if err := conn.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""), deadline); err != nil {
		return false
	}
	_ = conn.SetReadDeadline(deadline)
	for {
		if _, _, err := conn.NextReader(); err != nil {
			var closeError *websocket.CloseError
			return errors.As(err, &closeError)
		}
	}
}

// cpuSeconds is this process's user and system CPU so far.
func cpuSeconds() (user, system float64) {
	var usage syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &usage); err != nil {
		return 0, 0
	}
	seconds := func(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }
	return seconds(usage.Utime), seconds(usage.Stime)
}

// CPU is the client's own CPU time over the measured window.
type CPU struct {
	UserS   float64 `json:"user_s"`
	SystemS float64 `json:"system_s"`
}

type cpuMark struct{ user, system float64 }

func markCPU() cpuMark {
	user, system := cpuSeconds()
	return cpuMark{user, system}
}

func (m cpuMark) since() CPU {
	user, system := cpuSeconds()
	return CPU{UserS: round(user-m.user, 3), SystemS: round(system-m.system, 3)}
}

// Percentiles of round-trip (or delivery) times in microseconds.
type Percentiles struct {
	Count int     `json:"count"`
	Min   float64 `json:"min"`
	P50   float64 `json:"p50"`
	P90   float64 `json:"p90"`
	P99   float64 `json:"p99"`
	P999  float64 `json:"p999"`
	Max   float64 `json:"max"`
	Mean  float64 `json:"mean"`
}

// percentiles of durations in nanoseconds, by the nearest-rank method.
func percentiles(samples []int64) Percentiles {
	if len(samples) == 0 {
		return Percentiles{}
	}
	sort.Slice(samples, func(i, j int) bool { return samples[i] < samples[j] })
	rank := func(q float64) float64 {
		index := int(q*float64(len(samples))+0.999999) - 1
		if index < 0 {
			index = 0
		}
		return micros(samples[index])
	}
	var sum float64
	for _, s := range samples {
		sum += float64(s)
	}
	return Percentiles{
		Count: len(samples),
		Min:   micros(samples[0]),
		P50:   rank(0.50),
		P90:   rank(0.90),
		P99:   rank(0.99),
		P999:  rank(0.999),
		Max:   micros(samples[len(samples)-1]),
		Mean:  round(sum/float64(len(samples))/1e3, 1),
	}
}

func micros(ns int64) float64 { return round(float64(ns)/1e3, 1) }

func round(value float64, digits int) float64 {
	scale := 1.0
	for i := 0; i < digits; i++ {
		scale *= 10
	}
	if value < 0 {
		return -float64(int64(-value*scale+0.5)) / scale
	}
	return float64(int64(value*scale+0.5)) / scale
}

// errorTally counts distinct errors, keeping the report short when every connection fails alike.
type errorTally struct {
	mu     sync.Mutex
	counts map[string]int
}

func (t *errorTally) add(err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.counts == nil {
		t.counts = map[string]int{}
	}
	t.counts[err.Error()]++
}

func (t *errorTally) snapshot() map[string]int {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := map[string]int{}
	for k, v := range t.counts {
		out[k] = v
	}
	return out
}

// monotonic is nanoseconds on the monotonic clock since the process started.
var epoch = time.Now()

func monotonic() int64 { return int64(time.Since(epoch)) }
