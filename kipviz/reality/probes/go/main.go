// The franz-go consumer memory probe: a kgo.Client consuming assigned partitions from their start
// (once its baseline is read at their end) with a lagging application (PollRecords(ctx, n), then
// a sleep while it still holds the records it got, as an application busy with them does),
// reporting Go's heap.
//
// One argument: a JSON config (the text, or the path of a file holding it) with "bootstrap"
// (comma-separated host:port), "assign" ([[topic, partition], ...]), "settings" (kgo option names
// to integers: FetchMaxBytes, FetchMaxPartitionBytes, MaxConcurrentFetches, BrokerMaxReadBytes,
// FetchMinBytes), "polls", "sleep_ms", "records_per_poll" (0: every buffered fetch, as
// PollFetches), "sample_ms" and "force_gc".
//
// It prints one JSON object a line on stdout: "start" (the baseline, read after runtime.GC() with
// the client connected and its partitions assigned at their end, nothing to fetch, after a
// warm-up poll; then every partition is set to its start), a "sample" per poll, and a "summary"
// with the peaks over every sample (a goroutine also samples every sample_ms). Each sample reads
// runtime.MemStats twice: without a collection (HeapInuse/HeapAlloc as the program runs, garbage
// and GC headroom included) and, when force_gc, after runtime.GC() (what is live). An error is an
// "error" line and exit code 1.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

type config struct {
	Bootstrap      string           `json:"bootstrap"`
	Assign         [][2]any         `json:"assign"`
	Settings       map[string]int64 `json:"settings"`
	Polls          int              `json:"polls"`
	SleepMs        int              `json:"sleep_ms"`
	RecordsPerPoll int              `json:"records_per_poll"`
	SampleMs       int              `json:"sample_ms"`
	ForceGC        bool             `json:"force_gc"`
}

type heap struct{ inuse, alloc, sys uint64 }

func read() heap {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return heap{m.HeapInuse, m.HeapAlloc, m.HeapSys}
}

func rss() int64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return -1
	}
	var size, resident int64
	if _, err := fmt.Sscan(string(b), &size, &resident); err != nil {
		return -1
	}
	return resident * int64(os.Getpagesize())
}

type peaks struct {
	sync.Mutex
	base                                        heap
	baseRSS                                     int64
	inuseGC, allocGC, inuseNoGC, allocNoGC, rss int64
}

func over(v uint64, base uint64) int64 { return int64(v) - int64(base) }

// sample reads the heap without and (force_gc) after a collection; returns the line's fields.
func (p *peaks) sample(forceGC bool) map[string]any {
	p.Lock()
	defer p.Unlock()
	raw := read()
	out := map[string]any{
		"heap_inuse_nogc_bytes": over(raw.inuse, p.base.inuse),
		"heap_alloc_nogc_bytes": over(raw.alloc, p.base.alloc),
	}
	p.inuseNoGC = max(p.inuseNoGC, over(raw.inuse, p.base.inuse))
	p.allocNoGC = max(p.allocNoGC, over(raw.alloc, p.base.alloc))
	if forceGC {
		runtime.GC()
		live := read()
		out["heap_inuse_gc_bytes"] = over(live.inuse, p.base.inuse)
		out["heap_alloc_gc_bytes"] = over(live.alloc, p.base.alloc)
		p.inuseGC = max(p.inuseGC, over(live.inuse, p.base.inuse))
		p.allocGC = max(p.allocGC, over(live.alloc, p.base.alloc))
	}
	r := rss() - p.baseRSS
	out["rss_bytes"] = r
	p.rss = max(p.rss, r)
	return out
}

func emit(v map[string]any) {
	b, _ := json.Marshal(v)
	fmt.Println(string(b))
}

func fail(err error) {
	emit(map[string]any{"type": "error", "message": err.Error()})
	os.Exit(1)
}

// logLevel is warn, or $KIPVIZ_FRANZ_GO_LOG ("info", "debug") for a closer look.
func logLevel() kgo.LogLevel {
	switch os.Getenv("KIPVIZ_FRANZ_GO_LOG") {
	case "debug":
		return kgo.LogLevelDebug
	case "info":
		return kgo.LogLevelInfo
	}
	return kgo.LogLevelWarn
}

func options(c config) ([]kgo.Opt, error) {
	parts := map[string]map[int32]kgo.Offset{}
	for _, tp := range c.Assign {
		topic, ok1 := tp[0].(string)
		partition, ok2 := tp[1].(float64)
		if !ok1 || !ok2 {
			return nil, fmt.Errorf("assign must be [[topic, partition], ...]: %v", tp)
		}
		if parts[topic] == nil {
			parts[topic] = map[int32]kgo.Offset{}
		}
		parts[topic][int32(partition)] = kgo.NewOffset().AtEnd()
	}
	opts := []kgo.Opt{kgo.SeedBrokers(strings.Split(c.Bootstrap, ",")...),
		kgo.ConsumePartitions(parts), kgo.ClientID("kipviz-franz-go-probe"),
		kgo.WithLogger(kgo.BasicLogger(os.Stderr, logLevel(), nil))}
	for name, v := range c.Settings {
		switch name {
		case "FetchMaxBytes":
			opts = append(opts, kgo.FetchMaxBytes(int32(v)))
		case "FetchMaxPartitionBytes":
			opts = append(opts, kgo.FetchMaxPartitionBytes(int32(v)))
		case "MaxConcurrentFetches":
			opts = append(opts, kgo.MaxConcurrentFetches(int(v)))
		case "BrokerMaxReadBytes":
			opts = append(opts, kgo.BrokerMaxReadBytes(int32(v)))
		case "FetchMinBytes":
			opts = append(opts, kgo.FetchMinBytes(int32(v)))
		default:
			return nil, fmt.Errorf("setting %q is not one the probe sets", name)
		}
	}
	return opts, nil
}

// startOffsets is every assigned partition at offset 0, its start (no retention ran).
func startOffsets(c config) map[string]map[int32]kgo.EpochOffset {
	out := map[string]map[int32]kgo.EpochOffset{}
	for _, tp := range c.Assign {
		topic, _ := tp[0].(string)
		partition, _ := tp[1].(float64)
		if out[topic] == nil {
			out[topic] = map[int32]kgo.EpochOffset{}
		}
		out[topic][int32(partition)] = kgo.EpochOffset{Epoch: -1, Offset: 0}
	}
	return out
}

func main() {
	if len(os.Args) != 2 {
		fail(fmt.Errorf("usage: franz-go-probe <json config or its path>"))
	}
	text := []byte(os.Args[1])
	if !strings.HasPrefix(strings.TrimSpace(os.Args[1]), "{") {
		var err error
		if text, err = os.ReadFile(os.Args[1]); err != nil {
			fail(err)
		}
	}
	var c config
	if err := json.Unmarshal(text, &c); err != nil {
		fail(fmt.Errorf("config: %w", err))
	}
	if c.SampleMs <= 0 {
		c.SampleMs = 100
	}
	opts, err := options(c)
	if err != nil {
		fail(err)
	}
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		fail(err)
	}
	defer cl.Close()
	// the baseline: connected, the partitions' state made at their end (nothing to fetch); the
	// measure is what fetching the backlog adds
	warm, cancelWarm := context.WithTimeout(context.Background(), 1500*time.Millisecond)
	cl.PollRecords(warm, 1)
	cancelWarm()
	runtime.GC()
	p := &peaks{base: read(), baseRSS: rss()}
	cl.SetOffsets(startOffsets(c))
	version := "unknown"
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, dep := range info.Deps {
			if dep.Path == "github.com/twmb/franz-go" {
				version = dep.Version
			}
		}
	}
	emit(map[string]any{"type": "start", "client": "franz-go", "version": version,
		"go": runtime.Version(), "baseline_heap_inuse_bytes": p.base.inuse,
		"baseline_heap_alloc_bytes": p.base.alloc, "baseline_rss_bytes": p.baseRSS})

	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // between polls too: a fetch decoded while the application sleeps
		defer wg.Done()
		tick := time.NewTicker(time.Duration(c.SampleMs) * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				p.sample(c.ForceGC)
			}
		}
	}()
	started := time.Now()
	var records, valueBytes int64
	ctx := context.Background()
	for i := 0; i < c.Polls; i++ {
		line := p.sample(c.ForceGC)
		line["type"], line["poll"], line["records"] = "sample", i, records
		line["t_ms"] = time.Since(started).Milliseconds()
		emit(line)
		pollCtx, cancel := context.WithTimeout(ctx, 5*time.Second)
		fetches := cl.PollRecords(pollCtx, c.RecordsPerPoll)
		cancel()
		for _, e := range fetches.Errors() {
			if e.Err != context.DeadlineExceeded && e.Err != context.Canceled {
				fail(fmt.Errorf("fetch %s[%d]: %w", e.Topic, e.Partition, e.Err))
			}
		}
		fetches.EachRecord(func(r *kgo.Record) {
			records++
			valueBytes += int64(len(r.Value))
		})
		time.Sleep(time.Duration(c.SleepMs) * time.Millisecond)
		// the application works on its records while it sleeps: they stay reachable until then
		// (a kgo.Record's Value is a slice of its response, or of its decompressed batch)
		runtime.KeepAlive(fetches)
	}
	close(done)
	wg.Wait()
	line := p.sample(c.ForceGC)
	line["type"], line["poll"], line["records"] = "sample", c.Polls, records
	line["t_ms"] = time.Since(started).Milliseconds()
	emit(line)
	peak := p.inuseGC
	measure := "HeapInuse after runtime.GC() over the baseline"
	if !c.ForceGC {
		peak, measure = p.inuseNoGC, "HeapInuse (no forced GC) over the baseline"
	}
	emit(map[string]any{"type": "summary", "client": "franz-go", "version": version,
		"peak_bytes": peak, "measure": measure, "records": records, "value_bytes": valueBytes,
		"peak_heap_inuse_gc_bytes": p.inuseGC, "peak_heap_alloc_gc_bytes": p.allocGC,
		"peak_heap_inuse_nogc_bytes": p.inuseNoGC, "peak_heap_alloc_nogc_bytes": p.allocNoGC,
		"peak_rss_bytes": p.rss, "duration_ms": time.Since(started).Milliseconds()})
}
