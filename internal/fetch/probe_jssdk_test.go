package fetch

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// The A2A servers of the official JavaScript SDK (testdata/jssdk, whose
// packages make node-deps installs), serving A2A 1.0 as JSON-RPC,
// HTTP+JSON and gRPC from one handler: probed, each answers as declared,
// and the SDK's task store is left empty.

// startJSSDK starts testdata/jssdk/server.mjs and returns its HTTP and
// gRPC ports; it skips, saying why, without node or the packages.
func startJSSDK(t *testing.T) (httpPort, grpcPort int) {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: the JavaScript SDK's servers cannot run")
	}
	if _, err := os.Stat("testdata/jssdk/node_modules/@a2a-js/sdk"); err != nil {
		t.Skip("testdata/jssdk/node_modules is missing: run make node-deps")
	}
	cmd := exec.Command(node, "server.mjs")
	cmd.Dir = "testdata/jssdk"
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stdin.Close() // the server exits at the end of its input
		cmd.Wait()
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	var ports struct{ HTTP, GRPC int }
	if err != nil || json.Unmarshal([]byte(line), &ports) != nil {
		t.Fatalf("the server said %q: %v", line, err)
	}
	return ports.HTTP, ports.GRPC
}

// jssdkCount is what the server's task store holds and has saved.
func jssdkCount(t *testing.T, httpPort int) (tasks, saves int) {
	t.Helper()
	resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/count", httpPort))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var c struct{ Tasks, Saves int }
	if err := json.NewDecoder(resp.Body).Decode(&c); err != nil {
		t.Fatal(err)
	}
	return c.Tasks, c.Saves
}

func TestProbe_A2AJSSDK(t *testing.T) {
	httpPort, grpcPort := startJSSDK(t)
	base := fmt.Sprintf("http://127.0.0.1:%d", httpPort)
	ifaces := "[" + iface10(base+"/jsonrpc", "JSONRPC") + "," + iface10(base+"/rest", "HTTP+JSON") + "," +
		iface10(fmt.Sprintf("http://127.0.0.1:%d", grpcPort), "GRPC") + "]"
	// The second card promises an extended card the server does not have;
	// the third declares the JSON-RPC endpoint HTTP+JSON and the REST one
	// JSONRPC.
	cards := card10(ifaces, "{}") + "\n" + card10(ifaces, `{"extendedAgentCard":true}`) + "\n" +
		card10("["+iface10(base+"/jsonrpc", "HTTP+JSON")+","+iface10(base+"/rest", "JSONRPC")+"]", "{}") + "\n"
	recs, _, stderr := runProbeOn(t, nil, cards, "--allow-private", "--timeout", "5s")
	want := []struct {
		binding, class string
		rules          []string
	}{
		{"JSONRPC", classAnswering, nil},
		{"HTTP+JSON", classAnswering, nil},
		{"GRPC", classAnswering, nil},
		{"JSONRPC", classAnswering, []string{"probe.extended-card-missing"}},
		{"HTTP+JSON", classAnswering, []string{"probe.extended-card-missing"}},
		{"GRPC", classAnswering, []string{"probe.extended-card-missing"}},
		{"HTTP+JSON", classWrongBinding, []string{"probe.wrong-binding"}},
		{"JSONRPC", classWrongBinding, []string{"probe.wrong-binding"}},
	}
	if len(recs) != len(want) {
		t.Fatalf("%d records, want %d; stderr %s", len(recs), len(want), stderr)
	}
	for i, w := range want {
		r := recs[i]
		if r.Probe.Binding != w.binding || r.Probe.Class != w.class || !slices.Equal(r.rules(), w.rules) {
			t.Errorf("record %d: %s %s %v (%+v %+v), want %s %s %v", i, r.Probe.Binding, r.Probe.Class, r.rules(), r.Probe, r.Errors, w.binding, w.class, w.rules)
		}
	}
	if tasks, saves := jssdkCount(t, httpPort); tasks != 0 || saves != 0 {
		t.Errorf("after the probe the store holds %d tasks and saved %d times, want none", tasks, saves)
	}
	// The count does count: a message sent leaves a task.
	body := `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"hi"}]}}}`
	req, _ := http.NewRequest(http.MethodPost, base+"/jsonrpc", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("A2A-Version", "1.0")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if tasks, _ := jssdkCount(t, httpPort); tasks != 1 {
		t.Errorf("after SendMessage the store holds %d tasks, want 1", tasks)
	}
}
