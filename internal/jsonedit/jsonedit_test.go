package jsonedit

import (
	"encoding/json"
	"testing"
)

func TestEdited(t *testing.T) {
	const doc = `{"a": {"b": [1, 2, 3]}, "c": "x"}`
	for _, c := range []struct {
		name string
		path []string
		v    any
		del  bool
		want string
	}{
		{"set a member", []string{"c"}, "y", false, `{"a":{"b":[1,2,3]},"c":"y"}`},
		{"add a member", []string{"d"}, true, false, `{"a":{"b":[1,2,3]},"c":"x","d":true}`},
		{"delete a member", []string{"a"}, nil, true, `{"c":"x"}`},
		{"set an element", []string{"a", "b", "1"}, nil, false, `{"a":{"b":[1,null,3]},"c":"x"}`},
		{"delete an element", []string{"a", "b", "0"}, nil, true, `{"a":{"b":[2,3]},"c":"x"}`},
		{"into a scalar", []string{"c", "d"}, 1, false, `{"a":{"b":[1,2,3]},"c":"x"}`},
		{"past an array's end", []string{"a", "b", "3"}, 1, false, `{"a":{"b":[1,2,3]},"c":"x"}`},
	} {
		var root any
		if err := json.Unmarshal([]byte(doc), &root); err != nil {
			t.Fatal(err)
		}
		got, err := json.Marshal(Edited(root, c.path, c.v, c.del))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != c.want {
			t.Errorf("%s: got %s, want %s", c.name, got, c.want)
		}
		if again, _ := json.Marshal(root); string(again) != `{"a":{"b":[1,2,3]},"c":"x"}` {
			t.Errorf("%s: root changed to %s", c.name, again)
		}
	}
}
