package trustfile

import "testing"

// TestReadRootSyntaxErrorPosition: a policy file that is not YAML is
// named with the line and column of its fault, as an editor jumps to,
// and the message follows without the parser's own [LINE:COLUMN].
func TestReadRootSyntaxErrorPosition(t *testing.T) {
	_, err := ReadRoot("policy.yaml", []byte("rules:\n  a: [b\n  c: d\n"))
	const want = "policy.yaml:3:3: ',' or ']' must be specified"
	if err == nil || err.Error() != want {
		t.Fatalf("error %v, want %s", err, want)
	}
}
