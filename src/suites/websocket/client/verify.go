package main

import (
	"errors"
	"fmt"
	"math/rand"
	"time"
	"unicode/utf8"

	"github.com/gorilla/websocket"
)

type VerifyOptions struct {
	URL       string
	Texts     int
	Binaries  int
	MaxBinary int
	Seed      int64
}

// Check is one verification: passed, or the difference between what was sent and what came back.
type Check struct {
	Name   string `json:"name"`
	Passed bool   `json:"passed"`
	// Messages is how many were echoed and compared.
	Messages   int       `json:"messages,omitempty"`
	Mismatched int       `json:"mismatched,omitempty"`
	Difference string    `json:"difference,omitempty"`
	Mismatch   *Mismatch `json:"first_mismatch,omitempty"`
}

type VerifyReport struct {
	Seed   int64   `json:"seed"`
	Passed bool    `json:"passed"`
	Checks []Check `json:"checks"`
}

const verifyTimeout = 5 * time.Second

// RunVerify checks text echoes (sizes and characters varied by the seed, multi-byte UTF-8
// included), binary echoes up to MaxBinary bytes, and the closing handshake.
func RunVerify(options VerifyOptions) (*VerifyReport, error) {
	if options.URL == "" {
		return nil, errors.New("verify needs -url")
	}
	random := rand.New(rand.NewSource(options.Seed))
	texts := make([][]byte, options.Texts)
	for i := range texts {
		texts[i] = randomText(random, 1+random.Intn(2048))
	}
	binaries := make([][]byte, options.Binaries)
	for i := range binaries {
		size := 1 + random.Intn(options.MaxBinary)
		if i == 0 {
			size = options.MaxBinary
		}
		binaries[i] = make([]byte, size)
		random.Read(binaries[i])
	}
	report := &VerifyReport{Seed: options.Seed, Passed: true}
	for _, check := range []Check{
		echoCheck("text echo", options.URL, websocket.TextMessage, texts),
		echoCheck("binary echo", options.URL, websocket.BinaryMessage, binaries),
		closeCheck(options.URL),
	} {
		report.Passed = report.Passed && check.Passed
		report.Checks = append(report.Checks, check)
	}
	return report, nil
}

// randomText mixes ASCII with two-, three- and four-byte characters; the size is in bytes.
func randomText(random *rand.Rand, size int) []byte {
	alphabet := []rune("abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789{}\":,éßøЖ中文字€😀🚀")
	text := make([]byte, 0, size+4)
	for len(text) < size {
		text = utf8.AppendRune(text, alphabet[random.Intn(len(alphabet))])
	}
	return text
}

func echoCheck(name, url string, kind int, messages [][]byte) Check {
	check := Check{Name: name}
	largest := 0
	for _, m := range messages {
		largest = max(largest, len(m))
	}
	conn, err := dial(url, largest)
	if err != nil {
		check.Difference = err.Error()
		return check
	}
	defer conn.Close()
	buffer := make([]byte, largest+1024)
	for i, message := range messages {
		_ = conn.SetWriteDeadline(time.Now().Add(verifyTimeout))
		_ = conn.SetReadDeadline(time.Now().Add(verifyTimeout))
		if err := conn.WriteMessage(kind, message); err != nil {
			check.Difference = fmt.Sprintf("message %d of %d: send failed: %v", i+1, len(messages), err)
			return check
		}
		var gotKind int
		gotKind, buffer, err = readInto(conn, buffer)
		if err != nil {
			check.Difference = fmt.Sprintf("message %d of %d (%d bytes): no echo: %v", i+1, len(messages), len(message), err)
			return check
		}
		check.Messages++
		if gotKind != kind || string(buffer) != string(message) {
			check.Mismatched++
			if check.Mismatch == nil {
				check.Mismatch = describeMismatch(0, uint64(i), message, buffer, gotKind)
			}
		}
	}
	if check.Mismatched > 0 {
		m := check.Mismatch
		check.Difference = fmt.Sprintf("%d of %d echoes differ from what was sent; the first, message %d, sent %d bytes of %s and got %d bytes of %s differing from byte %d",
			check.Mismatched, check.Messages, m.Sequence+1, m.SentBytes, kindName(kind), m.GotBytes, m.GotType, m.FirstDiff)
		return check
	}
	check.Passed = true
	return check
}

// closeCheck sends a close frame (1000, with a reason) and expects the server's close frame in
// answer before the connection ends (RFC 6455 section 5.5.1).
func closeCheck(url string) Check {
	check := Check{Name: "close handshake"}
	conn, err := dial(url, 1024)
	if err != nil {
		check.Difference = err.Error()
		return check
	}
	defer conn.Close()
	var answer *websocket.CloseError
	conn.SetCloseHandler(func(code int, text string) error {
		answer = &websocket.CloseError{Code: code, Text: text}
		return nil // gorilla would echo it; we sent ours first
	})
	deadline := time.Now().Add(verifyTimeout)
	if err := conn.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, "verify"), deadline); err != nil {
		check.Difference = fmt.Sprintf("sending the close frame failed: %v", err)
		return check
	}
	_ = conn.SetReadDeadline(deadline)
	for {
		_, _, err := conn.NextReader()
		if err == nil {
			continue
		}
		if answer != nil {
			if answer.Code != websocket.CloseNormalClosure {
				check.Difference = fmt.Sprintf("the server answered close code 1000 with %d", answer.Code)
				return check
			}
			check.Passed = true
			return check
		}
		check.Difference = fmt.Sprintf("no close frame in answer to ours: %v", err)
		return check
	}
}
