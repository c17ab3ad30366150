package cmdflag

import (
	"errors"
	"flag"
	"reflect"
	"strings"
	"testing"
	"time"
)

type testFlags struct {
	jobs    int
	format  string
	quiet   bool
	all     bool
	limit   int64
	timeout time.Duration
	size    Size
	policy  string
	summary string
}

func newTestSet(o *testFlags) *Set {
	var s Set
	s.Int(&o.jobs, "-j, --jobs N", 0, "workers (default: the number of CPUs)")
	s.String(&o.format, "--format FORMAT", "text", "text or jsonl")
	s.Bool(&o.quiet, "-q, --quiet", "no findings")
	s.Bool(&o.all, "--all", "a verdict for every card")
	s.Int64(&o.limit, "--max-invalid N", 0, "stop after N invalid cards")
	s.Duration(&o.timeout, "--timeout D", 10*time.Second, "time limit")
	o.size = 16 << 20
	s.Var(&o.size, "--max-record SIZE", "longest record,\nin bytes")
	s.String(&o.policy, "--policy NAME", "default", "default or production").HideDefault()
	s.String(&o.summary, "--summary FILE", "", "write a summary to FILE")
	return &s
}

func TestSet_Parse(t *testing.T) {
	for _, tc := range []struct {
		args     []string
		want     func(o *testFlags) // what the args change from the defaults
		operands []string
	}{
		{nil, func(o *testFlags) {}, nil},
		{[]string{"-j4"}, func(o *testFlags) { o.jobs = 4 }, nil},
		{[]string{"-j", "4"}, func(o *testFlags) { o.jobs = 4 }, nil},
		{[]string{"-j=4"}, func(o *testFlags) { o.jobs = 4 }, nil},
		{[]string{"--jobs=4"}, func(o *testFlags) { o.jobs = 4 }, nil},
		{[]string{"--jobs", "4"}, func(o *testFlags) { o.jobs = 4 }, nil},
		{[]string{"-jobs", "4"}, func(o *testFlags) { o.jobs = 4 }, nil},
		{[]string{"--j", "4"}, func(o *testFlags) { o.jobs = 4 }, nil},
		{[]string{"-j", "-1"}, func(o *testFlags) { o.jobs = -1 }, nil},
		{[]string{"a.ndjson", "-q", "b.ndjson", "--format", "jsonl"}, func(o *testFlags) { o.quiet, o.format = true, "jsonl" }, []string{"a.ndjson", "b.ndjson"}},
		{[]string{"-q", "--", "-j4", "--all"}, func(o *testFlags) { o.quiet = true }, []string{"-j4", "--all"}},
		{[]string{"-", "--all=false", "--all"}, func(o *testFlags) { o.all = true }, []string{"-"}},
		{[]string{"-q", "--quiet=false"}, func(o *testFlags) {}, nil},
		{[]string{"--max-invalid", "3", "--timeout=1m", "--max-record=1KiB", "--policy", "production"}, func(o *testFlags) {
			o.limit, o.timeout, o.size, o.policy = 3, time.Minute, 1<<10, "production"
		}, nil},
		{[]string{"--format="}, func(o *testFlags) { o.format = "" }, nil},
		{[]string{"--summary", "-"}, func(o *testFlags) { o.summary = "-" }, nil},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			var got testFlags
			operands, err := newTestSet(&got).Parse(tc.args)
			if err != nil {
				t.Fatal(err)
			}
			want := testFlags{format: "text", timeout: 10 * time.Second, size: 16 << 20, policy: "default"}
			tc.want(&want)
			if got != want || !reflect.DeepEqual(operands, tc.operands) {
				t.Errorf("got %+v, operands %q; want %+v, %q", got, operands, want, tc.operands)
			}
		})
	}
}

func TestSet_ParseErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--bogus"}, "unknown flag --bogus"},
		{[]string{"-bogus"}, "unknown flag -bogus"},
		{[]string{"a.ndjson", "--bogus=1"}, "unknown flag --bogus"},
		{[]string{"-x4"}, "unknown flag -x4"},
		{[]string{"-qa"}, "unknown flag -qa"},
		// A slip in a long name gets the name meant, as a subcommand's
		// does; a name near none, or too short to tell, gets none.
		{[]string{"--formt", "jsonl"}, "unknown flag --formt: did you mean --format?"},
		{[]string{"-quite"}, "unknown flag -quite: did you mean --quiet?"},
		{[]string{"--max-invalud=3"}, "unknown flag --max-invalud: did you mean --max-invalid?"},
		{[]string{"--JOBS"}, "unknown flag --JOBS: did you mean --jobs?"},
		{[]string{"--x"}, "unknown flag --x"},
		{[]string{"--al"}, "unknown flag --al"},
		{[]string{"--jobs"}, "flag needs an argument: --jobs"},
		{[]string{"-j"}, "flag needs an argument: -j"},
		{[]string{"-jx"}, `invalid value "x" for flag -j: parse error`},
		{[]string{"--jobs=x"}, `invalid value "x" for flag --jobs: parse error`},
		{[]string{"--all=maybe"}, `invalid boolean value "maybe" for --all: parse error`},
		{[]string{"--max-record", "lots"}, `invalid value "lots" for flag --max-record: "lots" is not a size such as 4096, 64KiB or 16MiB`},
		// A flag whose default is no value cannot be told from one left
		// out when given empty (--summary="$UNSET"): the user meant one.
		{[]string{"--summary="}, `--summary "": FILE may not be empty`},
		{[]string{"a.ndjson", "--summary", ""}, `--summary "": FILE may not be empty`},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			_, err := newTestSet(&testFlags{}).Parse(tc.args)
			if err == nil || err.Error() != tc.want {
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
	for _, h := range []string{"-h", "--help", "-help", "--h"} {
		if _, err := newTestSet(&testFlags{}).Parse([]string{"a", h, "--bogus"}); !errors.Is(err, flag.ErrHelp) {
			t.Errorf("%s: %v, want flag.ErrHelp", h, err)
		}
	}
}

func TestSet_Help(t *testing.T) {
	got := newTestSet(&testFlags{}).Help()
	want := "" +
		"  -j, --jobs N            workers (default: the number of CPUs)\n" +
		"      --format FORMAT     text or jsonl (default text)\n" +
		"  -q, --quiet             no findings\n" +
		"      --all               a verdict for every card\n" +
		"      --max-invalid N     stop after N invalid cards\n" +
		"      --timeout D         time limit (default 10s)\n" +
		"      --max-record SIZE   longest record,\n" +
		"                          in bytes (default 16MiB)\n" +
		"      --policy NAME       default or production\n" +
		"      --summary FILE      write a summary to FILE\n"
	if got != want {
		t.Errorf("help:\n%s\nwant:\n%s", got, want)
	}
	// A long flag pushes the column for all.
	var s Set
	var b bool
	s.Bool(&b, "--a-flag-whose-name-is-long", "pushes the column")
	s.Bool(&b, "--xy", "follows it")
	want = "" +
		"      --a-flag-whose-name-is-long  pushes the column\n" +
		"      --xy                         follows it\n"
	if got := s.Help(); got != want {
		t.Errorf("help:\n%s\nwant:\n%s", got, want)
	}
}

func TestSet_Missing(t *testing.T) {
	s := newTestSet(&testFlags{})
	help := s.Help()
	if m := s.Missing(help); len(m) != 0 {
		t.Fatalf("Help itself misses %+v", m[0])
	}
	for _, tc := range []struct {
		name, help, missing string
	}{
		{"line dropped", strings.Replace(help, "  -q, --quiet             no findings\n", "", 1), "quiet"},
		{"other help", strings.Replace(help, "text or jsonl (default text)", "text or xml (default text)", 1), "format"},
		{"other default", strings.Replace(help, "(default 10s)", "(default 1s)", 1), "timeout"},
		{"continued default dropped", strings.Replace(help, "in bytes (default 16MiB)", "in bytes", 1), "max-record"},
		{"short name dropped", strings.Replace(help, "  -j, --jobs N", "      --jobs N", 1), "jobs"},
	} {
		m := s.Missing(tc.help)
		if len(m) != 1 || m[0].Long != tc.missing {
			t.Errorf("%s: missing %v, want only --%s", tc.name, m, tc.missing)
		}
	}
}

func TestSet_BadDeclarationsPanic(t *testing.T) {
	for _, tc := range []struct {
		name    string
		declare func(s *Set)
	}{
		{"no long name", func(s *Set) { var b bool; s.Bool(&b, "-q", "") }},
		{"switch with a value name", func(s *Set) { var b bool; s.Bool(&b, "--all X", "") }},
		{"value without a name", func(s *Set) { var n int; s.Int(&n, "--jobs", 0, "") }},
		{"short after long", func(s *Set) { var n int; s.Int(&n, "--jobs -j, N", 0, "") }},
		{"twice", func(s *Set) { var n int; s.Int(&n, "--jobs N", 0, ""); s.Int(&n, "-j, --jobs N", 0, "") }},
		{"help is taken", func(s *Set) { var b bool; s.Bool(&b, "-h, --hidden", "") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("declared without a panic")
				}
			}()
			tc.declare(&Set{})
		})
	}
}

// Given tells the flags the command line set from those left at their
// defaults, even when set to the default's value.
func TestSet_Given(t *testing.T) {
	var o testFlags
	s := newTestSet(&o)
	if _, err := s.Parse([]string{"-j4", "--format=text", "-q", "x"}); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]bool{"jobs": true, "j": true, "format": true, "quiet": true, "all": false, "policy": false, "nonesuch": false} {
		if got := s.Given(name); got != want {
			t.Errorf("Given(%q) = %v, want %v", name, got, want)
		}
	}
}
