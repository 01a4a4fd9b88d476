package main

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

var upgrader = websocket.Upgrader{ReadBufferSize: 70 * 1024, WriteBufferSize: 70 * 1024}

// server serves /echo (echoing through `transform`) and /room (relaying each message to every
// other member, every fiftieth one `copies` times). silentClose leaves close frames unanswered.
type server struct {
	transform   func(n int64, message []byte) []byte
	copies      int
	silentClose bool
	echoed      atomic.Int64
	mu          sync.Mutex
	members     map[*websocket.Conn]*sync.Mutex
}

func (s *server) start(t *testing.T) string {
	t.Helper()
	s.members = map[*websocket.Conn]*sync.Mutex{}
	mux := http.NewServeMux()
	mux.HandleFunc("/echo", s.echo)
	mux.HandleFunc("/room", s.room)
	httpServer := httptest.NewServer(mux)
	t.Cleanup(httpServer.Close)
	return "ws" + strings.TrimPrefix(httpServer.URL, "http")
}

func (s *server) upgrade(w http.ResponseWriter, r *http.Request) *websocket.Conn {
	conn, err := upgrader.Upgrade(w, r, nil)
	if err != nil {
		return nil
	}
	if s.silentClose {
		conn.SetCloseHandler(func(int, string) error { return nil })
	}
	return conn
}

func (s *server) echo(w http.ResponseWriter, r *http.Request) {
	conn := s.upgrade(w, r)
	if conn == nil {
		return
	}
	defer conn.Close()
	for {
		kind, message, err := conn.ReadMessage()
		if err != nil {
			return
		}
		if s.transform != nil {
			message = s.transform(s.echoed.Add(1), message)
		}
		if conn.WriteMessage(kind, message) != nil {
			return
		}
	}
}

func (s *server) room(w http.ResponseWriter, r *http.Request) {
	conn := s.upgrade(w, r)
	if conn == nil {
		return
	}
	defer conn.Close()
	s.mu.Lock()
	s.members[conn] = &sync.Mutex{}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.members, conn)
		s.mu.Unlock()
	}()
	for {
		kind, message, err := conn.ReadMessage()
		if err != nil {
			return
		}
		n := s.echoed.Add(1)
		s.mu.Lock()
		for member, lock := range s.members {
			if member == conn {
				continue
			}
			copies := 1
			if s.copies > 1 && n%50 == 0 {
				copies = s.copies
			}
			lock.Lock()
			for i := 0; i < copies; i++ {
				_ = member.WriteMessage(kind, message)
			}
			lock.Unlock()
		}
		s.mu.Unlock()
	}
}

// corruptEveryHundredth flips one byte of every hundredth echo, as the harness's fixture does.
func corruptEveryHundredth(n int64, message []byte) []byte {
	if n%100 != 0 {
		return message
	}
	out := append([]byte(nil), message...)
	out[len(out)/2] ^= 0x01
	return out
}

func TestHeaderRoundTrip(t *testing.T) {
	message := make([]byte, 40)
	p := newPattern(40, false, 7)
	p.fill(message, 3, 123456)
	conn, seq, ok := readHeader(message)
	if !ok || conn != 3 || seq != 123456 {
		t.Fatalf("header read back as %d %d %v", conn, seq, ok)
	}
	if !p.matches(message, 40, 3, 123456) || p.matches(message, 40, 3, 123457) {
		t.Fatal("matches must accept exactly the message it names")
	}
	other := make([]byte, 40)
	p.fill(other, 3, 123457)
	if string(other[headerSize:]) == string(message[headerSize:]) {
		t.Fatal("consecutive messages must differ beyond the header")
	}
}

func TestPercentilesNearestRank(t *testing.T) {
	samples := make([]int64, 0, 100)
	for i := 100; i >= 1; i-- {
		samples = append(samples, int64(i)*1000)
	}
	p := percentiles(samples)
	if p.Count != 100 || p.P50 != 50 || p.P99 != 99 || p.Max != 100 || p.Min != 1 || p.Mean != 50.5 {
		t.Fatalf("percentiles of 1..100 µs: %+v", p)
	}
}

func shortEcho(url string, binary bool, size int) EchoOptions {
	return EchoOptions{URL: url + "/echo", Connections: 4, Size: size, Binary: binary, Warmup: 100 * time.Millisecond, Duration: 400 * time.Millisecond}
}

func TestEchoCountsEveryRoundTrip(t *testing.T) {
	url := (&server{}).start(t)
	for _, binary := range []bool{false, true} {
		report, err := RunEcho(shortEcho(url, binary, 64*1024))
		if err != nil {
			t.Fatal(err)
		}
		if report.Sent == 0 || report.Received != report.Sent || report.Mismatched != 0 || report.WarmupMismatched != 0 {
			t.Fatalf("binary=%v: sent %d received %d mismatched %d", binary, report.Sent, report.Received, report.Mismatched)
		}
		if report.RttUs.Count != report.Received || report.RttUs.P50 <= 0 || report.RttUs.P99 < report.RttUs.P50 {
			t.Fatalf("round trips: %+v", report.RttUs)
		}
		if report.CloseAnswered != 4 || len(report.Errors) != 0 {
			t.Fatalf("close answered %d, errors %v", report.CloseAnswered, report.Errors)
		}
		want := float64(report.Received) / 0.4
		if report.MessagesPerS < want*0.99 || report.MessagesPerS > want*1.01 {
			t.Fatalf("messages/s %v for %d in 0.4 s", report.MessagesPerS, report.Received)
		}
	}
}

func TestEchoCountsCorruptedEchoes(t *testing.T) {
	url := (&server{transform: corruptEveryHundredth}).start(t)
	report, err := RunEcho(shortEcho(url, false, 32))
	if err != nil {
		t.Fatal(err)
	}
	total := report.Mismatched + report.WarmupMismatched
	if report.Received < 300 || total == 0 {
		t.Fatalf("received %d, mismatched %d: every hundredth echo was corrupted", report.Received, total)
	}
	if report.FirstMismatch == nil || report.FirstMismatch.GotBytes != 32 || report.FirstMismatch.FirstDiff != 16 {
		t.Fatalf("first mismatch: %+v", report.FirstMismatch)
	}
}

func TestVerifyPassesAFaithfulServer(t *testing.T) {
	url := (&server{}).start(t)
	report, err := RunVerify(VerifyOptions{URL: url + "/echo", Texts: 200, Binaries: 20, MaxBinary: 64 * 1024, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if !report.Passed || len(report.Checks) != 3 {
		t.Fatalf("%+v", report)
	}
}

func TestVerifyFailsOneCorruptedEchoInAHundred(t *testing.T) {
	url := (&server{transform: corruptEveryHundredth}).start(t)
	report, err := RunVerify(VerifyOptions{URL: url + "/echo", Texts: 200, Binaries: 20, MaxBinary: 64 * 1024, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	text := report.Checks[0]
	if report.Passed || text.Passed || text.Mismatched != 2 || !strings.Contains(text.Difference, "2 of 200 echoes differ") {
		t.Fatalf("%+v", text)
	}
	if text.Mismatch.Sequence != 99 {
		t.Fatalf("the hundredth echo was the first corrupted one, not %d", text.Mismatch.Sequence+1)
	}
}

func TestVerifyFailsAnUnansweredClose(t *testing.T) {
	url := (&server{silentClose: true}).start(t)
	report, err := RunVerify(VerifyOptions{URL: url + "/echo", Texts: 1, Binaries: 1, MaxBinary: 16, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	closing := report.Checks[2]
	if report.Passed || closing.Passed || !strings.Contains(closing.Difference, "no close frame") {
		t.Fatalf("%+v", closing)
	}
}

func TestBroadcastReachesEveryReceiverOnce(t *testing.T) {
	url := (&server{}).start(t)
	report, err := RunBroadcast(BroadcastOptions{URL: url + "/room", Receivers: 5, Size: 64, Window: 4, Warmup: 100 * time.Millisecond, Duration: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if report.Sent == 0 || report.Received != report.Expected || report.Mismatched+report.WarmupMismatched != 0 || report.SenderReceived != 0 {
		t.Fatalf("%+v", report)
	}
	if report.DeliveryUs.Count < report.Sent-4 || report.CloseAnswered != 5 || len(report.Errors) != 0 {
		t.Fatalf("%+v", report)
	}
}

func TestBroadcastCountsDuplicates(t *testing.T) {
	url := (&server{copies: 2}).start(t)
	report, err := RunBroadcast(BroadcastOptions{URL: url + "/room", Receivers: 3, Size: 64, Window: 1, Warmup: 50 * time.Millisecond, Duration: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if report.Mismatched+report.WarmupMismatched == 0 {
		t.Fatalf("every fiftieth message went out twice, yet no receiver saw a duplicate: %+v", report)
	}
}
