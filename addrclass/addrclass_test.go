package addrclass

import (
	"net/netip"
	"testing"
)

// The forms an IPv6 address takes to carry an IPv4 one, and the IPv4
// ranges no public server is in, beside public addresses of each form.
func TestOf(t *testing.T) {
	for _, tc := range []struct{ addr, class string }{
		{"127.0.0.1", "loopback"},
		{"::1", "loopback"},
		{"::ffff:127.0.0.1", "loopback"}, // IPv4-mapped
		{"::127.0.0.1", "loopback"},      // IPv4-compatible
		{"::7f00:1", "loopback"},         // the same, in hex
		{"::10.0.0.1", "private"},        // IPv4-compatible
		{"64:ff9b::7f00:1", "loopback"},  // NAT64
		{"64:ff9b::c0a8:101", "private"}, // NAT64 of 192.168.1.1
		{"64:ff9b::a9fe:a9fe", "link-local"},
		{"64:ff9b:1::1", "private"}, // local-use NAT64, whatever it carries
		{"64:ff9b:1:808:8:800::", "private"},
		{"2002:7f00:1::", "loopback"},      // 6to4 of 127.0.0.1
		{"2002:c0a8:101::1", "private"},    // 6to4 of 192.168.1.1
		{"2002:a9fe:a9fe::", "link-local"}, // 6to4 of 169.254.169.254
		{"2002:0:1::", "unspecified"},      // 6to4 of 0.0.1.0
		{"fe80::1%eth0", "link-local"},
		{"224.0.0.1", "multicast"},
		{"239.255.255.255", "multicast"},
		{"ff02::1", "multicast"},
		{"ff0e::1", "multicast"},
		{"::ffff:224.0.0.1", "multicast"},
		{"255.255.255.255", "broadcast"},
		{"::ffff:255.255.255.255", "broadcast"},
		{"255.255.255.254", "reserved"},
		{"198.18.0.0", "benchmarking"},
		{"198.19.255.255", "benchmarking"},
		{"64:ff9b::c612:1", "benchmarking"},
		{"::", "unspecified"},
		{"0.0.0.0", "unspecified"},

		{"8.8.8.8", ""},
		{"198.17.255.255", ""},
		{"198.20.0.0", ""},
		{"223.255.255.255", ""},
		{"::8.8.8.8", ""},
		{"64:ff9b::808:808", ""},
		{"64:ff9b:2::1", ""},
		{"2002:808:808::1", ""},
		{"2001:4860:4860::8888", ""},
	} {
		if got := Of(netip.MustParseAddr(tc.addr)); got != tc.class {
			t.Errorf("Of(%s) = %q, want %q", tc.addr, got, tc.class)
		}
	}
	if got := Of(netip.Addr{}); got != "invalid" {
		t.Errorf("Of(zero Addr) = %q, want invalid", got)
	}
}

func TestOf_ZeroAllocs(t *testing.T) {
	a := netip.MustParseAddr("2002:c0a8:101::1")
	if n := testing.AllocsPerRun(100, func() { Of(a) }); n != 0 {
		t.Errorf("Of allocates %v times, want 0", n)
	}
}
