package fastvalidate

import "testing"

func TestAppendMessageAllocs(t *testing.T) {
	v := MustNew("agentcard")
	r := v.Validate([]byte(`{"name":"","version":"x","capabilities":[]}`))
	buf := make([]byte, 0, 4096)
	n := testing.AllocsPerRun(100, func() {
		for i := range r.Findings() {
			buf = r.Findings()[i].AppendMessage(buf[:0])
		}
	})
	if n != 0 {
		t.Fatalf("AppendMessage allocates %v times per card", n)
	}
}
