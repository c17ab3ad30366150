package cardsig

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/go-jose/go-jose/v4"
)

// TestCrossImplementation: cards signed by Node's jose package over the
// canonicalize package's RFC 8785 form verify here, and cards signed here
// verify there, for every algorithm. make test installs the Node packages
// (npm ci in testdata/node); without node or them the test says so and
// skips.
func TestCrossImplementation(t *testing.T) {
	dir := filepath.Join("testdata", "node")
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed; the cross-implementation check needs it")
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "jose")); err != nil {
		t.Skip("the Node packages are not installed: run npm ci in cardsig/testdata/node (make test does)")
	}
	keys := testKeys(t)
	v := newVerifier(t, keys)

	type task struct {
		JWK  jose.JSONWebKey `json:"jwk"`
		Alg  string          `json:"alg"`
		Card string          `json:"card"`
	}
	var req struct {
		Sign   []task `json:"sign"`
		Verify []task `json:"verify"`
	}
	for _, k := range keys {
		req.Sign = append(req.Sign, task{JWK: k.priv, Alg: k.alg, Card: testCard})
		req.Verify = append(req.Verify, task{JWK: k.priv.Public(), Alg: k.alg, Card: string(sign(t, testCard, k, SignOptions{}))})
	}
	// And one card Node must refuse: cardscan's signature with a byte
	// changed, so that its "ok" is known to mean something.
	bad := sign(t, testCard, keys[0], SignOptions{})
	bad[bytes.Index(bad, []byte(`"Route"`))+1] = 'r'
	req.Verify = append(req.Verify, task{JWK: keys[0].priv.Public(), Alg: keys[0].alg, Card: string(bad)})

	in, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, "cross.mjs")
	cmd.Dir = dir
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, stderr.String())
	}
	var resp struct {
		Signed   []string `json:"signed"`
		Verified []struct {
			OK    bool   `json:"ok"`
			Error string `json:"error"`
		} `json:"verified"`
	}
	if err := json.Unmarshal(out, &resp); err != nil {
		t.Fatalf("node wrote %q: %v", out, err)
	}
	if len(resp.Signed) != len(keys) || len(resp.Verified) != len(keys)+1 {
		t.Fatalf("node answered %d signed and %d verified", len(resp.Signed), len(resp.Verified))
	}
	for i, k := range keys {
		res, err := v.Verify([]byte(resp.Signed[i]))
		if err != nil || !res.Verified() || res.SignedBy[0] != k.priv.KeyID {
			t.Errorf("%s: card signed by Node's jose does not verify: %+v, %v\n%s", k.alg, res, err, resp.Signed[i])
		}
		if r := resp.Verified[i]; !r.OK {
			t.Errorf("%s: Node's jose does not verify cardscan's signature: %s", k.alg, r.Error)
		}
	}
	if resp.Verified[len(keys)].OK {
		t.Error("Node's jose verified a changed card")
	}
}
