package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/a2aproject/a2a-go/a2a"
	"github.com/a2aproject/a2a-go/a2agrpc"
	"github.com/a2aproject/a2a-go/a2asrv"
	"github.com/a2aproject/a2a-go/a2asrv/eventqueue"
	"google.golang.org/grpc"
)

// The A2A Go SDK's servers, probed by the cardscan binary: the SDK (0.3)
// serves JSON-RPC and gRPC, and every interface must be found answering,
// with no task created.

// countingStore is the servers' task store: an in-memory one that counts
// what was saved, so that a test can tell no call created a task.
type countingStore struct {
	mu    sync.Mutex
	tasks map[a2a.TaskID]*a2a.Task
}

func (s *countingStore) Save(_ context.Context, t *a2a.Task) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tasks[t.ID] = t
	return nil
}

func (s *countingStore) Get(_ context.Context, id a2a.TaskID) (*a2a.Task, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if t, ok := s.tasks[id]; ok {
		return t, nil
	}
	return nil, a2a.ErrTaskNotFound
}

func (s *countingStore) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.tasks)
}

// taskExecutor answers every message with a completed task, so that a
// message sent would leave a task in the store.
type taskExecutor struct{}

func (taskExecutor) Execute(ctx context.Context, reqCtx *a2asrv.RequestContext, q eventqueue.Queue) error {
	task := a2a.NewSubmittedTask(reqCtx, reqCtx.Message)
	task.Status.State = a2a.TaskStateCompleted
	return q.Write(ctx, task)
}

func (taskExecutor) Cancel(context.Context, *a2asrv.RequestContext, eventqueue.Queue) error {
	return nil
}

// buildCardscan builds the command under test into a temporary directory.
func buildCardscan(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "cardscan")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/cardscan")
	cmd.Dir = ".."
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building cardscan: %v\n%s", err, out)
	}
	return bin
}

// sdkProbeRecord is what the test reads of a probe record.
type sdkProbeRecord struct {
	Errors   []struct{ Rule, Message string } `json:"errors"`
	Warnings []struct{ Rule, Message string } `json:"warnings"`
	Probe    struct {
		URL, Binding, Class, Answer string
		Extended                    string `json:"extended_card"`
	} `json:"probe"`
}

func runProbe(t *testing.T, bin string, cards string) []sdkProbeRecord {
	t.Helper()
	path := filepath.Join(t.TempDir(), "cards.ndjson")
	if err := os.WriteFile(path, []byte(cards), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	cmd := exec.Command(bin, "probe", "--allow-private", "--timeout", "5s", path)
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatal(err)
	}
	var recs []sdkProbeRecord
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var r sdkProbeRecord
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("record %q: %v; stderr %s", line, err, errb.String())
		}
		recs = append(recs, r)
	}
	t.Logf("stderr: %s", errb.String())
	return recs
}

// card03 is an A2A 0.3 card with a JSONRPC main interface and more.
func card03(main string, extended bool, additional ...string) string {
	card := map[string]any{
		"name": "Ledger", "description": "Summarises ledgers.", "version": "1.0.0", "protocolVersion": "0.3.0",
		"url": main, "preferredTransport": "JSONRPC", "capabilities": map[string]any{},
		"defaultInputModes": []string{"text/plain"}, "defaultOutputModes": []string{"text/plain"},
		"skills": []any{map[string]any{"id": "summarise", "name": "Summarise", "description": "Summarises ledgers.", "tags": []string{"finance"}}},
	}
	if extended {
		card["supportsAuthenticatedExtendedCard"] = true
	}
	var ais []any
	for i := 0; i+1 < len(additional); i += 2 {
		ais = append(ais, map[string]string{"url": additional[i], "transport": additional[i+1]})
	}
	if ais != nil {
		card["additionalInterfaces"] = ais
	}
	b, _ := json.Marshal(card)
	return string(b) + "\n"
}

func TestProbe_A2AGoSDK(t *testing.T) {
	if testing.Short() {
		t.Skip("builds cardscan")
	}
	store := &countingStore{tasks: map[a2a.TaskID]*a2a.Task{}}
	handler := a2asrv.NewHandler(taskExecutor{}, a2asrv.WithTaskStore(store))
	mux := http.NewServeMux()
	mux.Handle("/a2a", a2asrv.NewJSONRPCHandler(handler))
	rpc := httptest.NewServer(mux)
	defer rpc.Close()

	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gs := grpc.NewServer()
	a2agrpc.NewHandler(handler).RegisterWith(gs)
	go gs.Serve(lis)
	defer gs.Stop()
	grpcURL := "http://" + lis.Addr().String()

	bin := buildCardscan(t)
	cards := card03(rpc.URL+"/a2a", false, rpc.URL+"/a2a", "JSONRPC", grpcURL, "GRPC") +
		card03(rpc.URL+"/a2a", true, grpcURL, "GRPC") +
		// The JSON-RPC endpoint declared as HTTP+JSON: the wrong binding.
		card03(rpc.URL+"/a2a", false, rpc.URL+"/a2a", "HTTP+JSON")
	recs := runProbe(t, bin, cards)
	type want struct {
		binding, class string
		rules          []string
	}
	wants := []want{
		{"JSONRPC", "answering", nil},
		{"GRPC", "answering", nil},
		// The SDK has no extended card configured: -32007, and
		// FAILED_PRECONDITION over gRPC.
		{"JSONRPC", "answering", []string{"probe.extended-card-missing"}},
		{"GRPC", "answering", []string{"probe.extended-card-missing"}},
		{"JSONRPC", "answering", nil},
		{"HTTP+JSON", "wrong_binding", []string{"probe.wrong-binding"}},
	}
	if len(recs) != len(wants) {
		t.Fatalf("%d records, want %d: %+v", len(recs), len(wants), recs)
	}
	for i, w := range wants {
		r := recs[i]
		var rules []string
		for _, f := range append(r.Errors, r.Warnings...) {
			rules = append(rules, f.Rule)
		}
		if r.Probe.Binding != w.binding || r.Probe.Class != w.class || fmt.Sprint(rules) != fmt.Sprint(w.rules) {
			t.Errorf("record %d: %s %s rules %v (%+v), want %s %s %v", i, r.Probe.Binding, r.Probe.Class, rules, r, w.binding, w.class, w.rules)
		}
	}
	if n := store.count(); n != 0 {
		t.Errorf("the probe left %d tasks in the server's store", n)
	}
	// The store does count: a message sent leaves a task.
	body := `{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"kind":"message","messageId":"m1","role":"user","parts":[{"kind":"text","text":"hi"}]}}}`
	resp, err := http.Post(rpc.URL+"/a2a", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if n := store.count(); n != 1 {
		t.Errorf("after message/send the store holds %d tasks, want 1", n)
	}
}
