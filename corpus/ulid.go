package corpus

import "time"

// ulidEpoch and ulidSpan bound the timestamps of generated ULIDs: all lie
// in 2024 and 2025, so they are in the past for any validator clock from
// 2026 on, and no run of the generator ever reads the clock.
var (
	ulidEpoch = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli()
	ulidSpan  = int64(2 * 365 * 24 * time.Hour / time.Millisecond)
)

const crockford = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

// appendULID appends a ULID: a 48-bit millisecond timestamp and 80 random
// bits, 26 characters of Crockford Base32, the first one '0' to '7'.
func (r *rng) appendULID(dst []byte) []byte {
	ms := uint64(ulidEpoch + int64(r.intn(int(ulidSpan))))
	hi := r.uint64() & (1<<16 - 1) // 16 of the 80 random bits
	lo := r.uint64()               // the other 64
	// 128 bits as ms(48) | hi(16) | lo(64), read 5 bits at a time from the
	// top of a 130-bit field whose two leading bits are zero.
	var v [2]uint64
	v[0] = ms<<16 | hi
	v[1] = lo
	for i := 0; i < 26; i++ {
		shift := 125 - 5*i // bit offset of this character within the 128 bits
		var c uint64
		switch {
		case shift >= 64:
			c = v[0] >> (shift - 64)
		case shift > 59:
			c = v[0]<<(64-shift) | v[1]>>shift
		default:
			c = v[1] >> shift
		}
		dst = append(dst, crockford[c&31])
	}
	return dst
}

// ulid returns a string node holding a fresh ULID.
func (b *builder) ulid() int32 {
	start := b.mark()
	b.text = b.r.appendULID(b.text)
	return b.strFrom(start)
}
