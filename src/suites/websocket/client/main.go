// wsclient is runtime-bench's WebSocket load client: echo and broadcast load with every round
// trip timed on the monotonic clock, and the checks a server must pass before and after it is
// measured. It prints one JSON report on stdout, as oha does.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"time"
)

// version is set at build time by scripts/lib/common.sh (ensure_wsclient) to the source's hash.
var version = "dev"

const usage = `usage: wsclient echo|broadcast|verify [flags]  (wsclient -version; wsclient MODE -h lists flags)`

func main() {
	if len(os.Args) < 2 {
		fail(errors.New(usage))
	}
	var report any
	var err error
	switch os.Args[1] {
	case "-version", "--version":
		fmt.Printf("wsclient %s (gorilla/websocket %s)\n", version, gorillaVersion)
		return
	case "echo":
		var options EchoOptions
		flags := newFlags("echo")
		flags.StringVar(&options.URL, "url", "", "ws:// URL of the echo endpoint")
		flags.IntVar(&options.Connections, "connections", 50, "connections, each with one message in flight")
		flags.IntVar(&options.Size, "size", 32, "message size in bytes (at least 16)")
		flags.BoolVar(&options.Binary, "binary", false, "send binary messages instead of text")
		flags.DurationVar(&options.Warmup, "warmup", 2*time.Second, "load before measuring")
		flags.DurationVar(&options.Duration, "duration", 5*time.Second, "measured load")
		parse(flags)
		report, err = RunEcho(options)
	case "broadcast":
		var options BroadcastOptions
		flags := newFlags("broadcast")
		flags.StringVar(&options.URL, "url", "", "ws:// URL of the room")
		flags.IntVar(&options.Receivers, "receivers", 50, "receivers in the room beside the one sender")
		flags.IntVar(&options.Size, "size", 32, "message size in bytes (at least 16)")
		flags.BoolVar(&options.Binary, "binary", false, "send binary messages instead of text")
		flags.IntVar(&options.Window, "window", 1, "messages in flight: the sender sends the next one when the oldest reached every receiver")
		flags.DurationVar(&options.Warmup, "warmup", 2*time.Second, "load before measuring")
		flags.DurationVar(&options.Duration, "duration", 5*time.Second, "measured load")
		parse(flags)
		report, err = RunBroadcast(options)
	case "verify":
		var options VerifyOptions
		flags := newFlags("verify")
		flags.StringVar(&options.URL, "url", "", "ws:// URL of the echo endpoint")
		flags.IntVar(&options.Texts, "texts", 200, "text messages to echo")
		flags.IntVar(&options.Binaries, "binaries", 100, "binary messages to echo")
		flags.IntVar(&options.MaxBinary, "max-binary", 64*1024, "largest binary message")
		// Below 2^53, so the seed survives JSON readers that hold numbers as doubles.
		flags.Int64Var(&options.Seed, "seed", time.Now().UnixNano()&(1<<53-1), "seed of the messages' contents and sizes")
		parse(flags)
		report, err = RunVerify(options)
	default:
		fail(errors.New(usage))
	}
	if err != nil {
		fail(err)
	}
	out := json.NewEncoder(os.Stdout)
	out.SetIndent("", "  ")
	if err := out.Encode(report); err != nil {
		fail(err)
	}
}

func newFlags(mode string) *flag.FlagSet {
	return flag.NewFlagSet("wsclient "+mode, flag.ExitOnError)
}

func parse(flags *flag.FlagSet) {
	_ = flags.Parse(os.Args[2:])
	if flags.NArg() > 0 {
		fail(fmt.Errorf("unexpected argument %q", flags.Arg(0)))
	}
}

// fail prints one line on stderr and exits 2: the harness shows that line.
func fail(err error) {
	fmt.Fprintln(os.Stderr, "wsclient:", err)
	os.Exit(2)
}
