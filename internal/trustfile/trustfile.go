package trustfile

import (
	"bytes"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/goccy/go-yaml/ast"

	"github.com/cardscan/cardscan/cardsig"
	"github.com/cardscan/cardscan/internal/suggest"
)

// trustKeys are the keys of a trust policy: a --trust file's top level,
// or the trust section of a policy file.
var trustKeys = []string{"origins", "revoked", "x5c-roots"}

// originKeys are the keys of one origin's entry.
var originKeys = []string{"keys", "thumbprints", "origin-jwks", "jku", "x5c"}

// MaxFileBytes bounds a policy file and a --trust file: a real one is a
// few kilobytes.
const MaxFileBytes = 1 << 20

// maxKeySet bounds a JWK Set file, as a fetched jku is bounded: a trust
// store is a few keys, and a file far larger is no JWK Set.
const maxKeySet = cardsig.JKUMaxBytes

// maxPEM bounds an x5c-roots bundle: the system's own is a few hundred
// kilobytes.
const maxPEM = 4 << 20

// Load reads a --trust file: a trust policy at its top level, under
// the same limits and with the same line:column errors as a policy file.
// Files it names are relative to its directory.
func Load(path string) (*cardsig.Trust, error) {
	src, err := ReadBounded(path, MaxFileBytes)
	if err != nil {
		return nil, err
	}
	root, err := ReadRoot(path, src)
	if err != nil {
		return nil, err
	}
	if root == nil {
		return nil, fmt.Errorf("%s: empty: a trust policy needs at least one origin", path)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %s", path, pathErr(err))
	}
	return Parse(path, filepath.Dir(abs), root)
}

// ReadBounded reads at most limit bytes of path, refusing a larger file.
func ReadBounded(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %s", path, pathErr(err))
	}
	defer f.Close()
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(io.LimitReader(f, limit+1)); err != nil {
		return nil, fmt.Errorf("%s: %s", path, pathErr(err))
	}
	if int64(buf.Len()) > limit {
		return nil, fmt.Errorf("%s: larger than %d bytes", path, limit)
	}
	return buf.Bytes(), nil
}

// trustReader reads one trust policy, naming its file, line and column.
type trustReader struct {
	path, dir string
}

func (r trustReader) at(n ast.Node, format string, args ...any) error {
	pos := n.GetToken().Position
	return fmt.Errorf("%s:%d:%d: %s", r.path, pos.Line, pos.Column, fmt.Sprintf(format, args...))
}

// unknown is the error for a key outside known.
func (r trustReader) unknown(n ast.Node, what, key string, known []string) error {
	if near := suggest.Nearest(key, known); near != "" {
		return r.at(n, "%s: unknown key %s: did you mean %s?", what, Quote(key), near)
	}
	return r.at(n, "%s: unknown key %s; known keys: %s", what, Quote(key), strings.Join(known, ", "))
}

// Parse reads a trust policy's mapping, root, of the file path; files it
// names are relative to dir.
func Parse(path, dir string, root ast.Node) (*cardsig.Trust, error) {
	r := trustReader{path: path, dir: dir}
	entries, ok := MappingEntries(root)
	if !ok {
		return nil, r.at(root, "trust: want a mapping of %s, got %s", strings.Join(trustKeys, ", "), NodeKind(root))
	}
	t := &cardsig.Trust{Origins: map[string]*cardsig.OriginTrust{}}
	for _, e := range entries {
		key, _ := Scalar(e.Key)
		var err error
		switch key {
		case "origins":
			err = r.readOrigins(t, e.Value)
		case "revoked":
			t.Revoked, err = r.readThumbprints("revoked", e.Value)
		case "x5c-roots":
			t.Roots, err = r.readRoots(e.Value)
		default:
			err = r.unknown(e.Key, "trust", key, trustKeys)
		}
		if err != nil {
			return nil, err
		}
	}
	if len(t.Origins) == 0 {
		return nil, r.at(root, "trust: no origins: a trust policy names at least one origin (or \"*\")")
	}
	return t, nil
}

func (r trustReader) readOrigins(t *cardsig.Trust, v ast.Node) error {
	entries, ok := MappingEntries(v)
	if !ok {
		return r.at(v, "origins: want a mapping of origins (https://host) to what may sign for them, got %s", NodeKind(v))
	}
	for _, e := range entries {
		name, ok := Scalar(e.Key)
		if !ok {
			return r.at(e.Key, "origins: want an origin, got %s", NodeKind(e.Key))
		}
		norm := name
		if name != "*" {
			o, err := cardsig.Origin(name)
			if err != nil {
				return r.at(e.Key, "origins: %s", strings.TrimPrefix(err.Error(), "cardsig: "))
			}
			if u, err := url.Parse(name); err != nil || u.Path != "" && u.Path != "/" || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
				return r.at(e.Key, "origins: %s has a path, query or fragment: an origin is scheme://host[:port] (%s)", Quote(name), o)
			}
			norm = o
		}
		if _, dup := t.Origins[norm]; dup {
			return r.at(e.Key, "origins: %s is listed twice", norm)
		}
		ot, err := r.readOrigin(name, e.Value)
		if err != nil {
			return err
		}
		t.Origins[norm] = ot
	}
	return nil
}

func (r trustReader) readOrigin(name string, v ast.Node) (*cardsig.OriginTrust, error) {
	entries, ok := MappingEntries(v)
	if !ok {
		return nil, r.at(v, "%s: want a mapping of %s, got %s", name, strings.Join(originKeys, ", "), NodeKind(v))
	}
	ot := &cardsig.OriginTrust{}
	for _, e := range entries {
		key, _ := Scalar(e.Key)
		what := name + ": " + key
		var err error
		switch key {
		case "keys":
			ot.Keys, err = r.readKeys(what, e.Value)
		case "thumbprints":
			ot.Thumbprints, err = r.readThumbprints(what, e.Value)
		case "origin-jwks":
			s, ok := Scalar(e.Value)
			if !ok || !strings.HasPrefix(s, "/") || strings.ContainsAny(s, "?#") {
				err = r.at(e.Value, "%s: want a path on the origin starting with / (e.g. /.well-known/jwks.json), got %s", what, NodeKind(e.Value))
			}
			ot.JWKSPath = s
		case "jku":
			s, _ := Scalar(e.Value)
			if s != "same-origin" && s != "never" {
				err = r.at(e.Value, "%s: want same-origin or never, got %s", what, NodeKind(e.Value))
			}
			ot.SameOriginJKU = s == "same-origin"
		case "x5c":
			s, _ := Scalar(e.Value)
			if s != "true" && s != "false" {
				err = r.at(e.Value, "%s: want true or false, got %s", what, NodeKind(e.Value))
			}
			ot.X5C = s == "true"
		default:
			err = r.unknown(e.Key, name, key, originKeys)
		}
		if err != nil {
			return nil, err
		}
	}
	return ot, nil
}

// readKeys reads the JWK Set file (or files) an origin pins.
func (r trustReader) readKeys(what string, v ast.Node) (*cardsig.KeySet, error) {
	nodes := []ast.Node{v}
	if seq, ok := v.(*ast.SequenceNode); ok {
		nodes = seq.Values
	}
	set := new(cardsig.KeySet)
	for _, n := range nodes {
		file, ok := Scalar(n)
		if !ok || file == "" {
			return nil, r.at(n, "%s: want a JWK Set file or a list of them, got %s", what, NodeKind(n))
		}
		if !filepath.IsAbs(file) {
			file = filepath.Join(r.dir, file)
		}
		data, err := readNamed(file, maxKeySet)
		if err != nil {
			return nil, r.at(n, "%s: %s: %s", what, file, pathErr(err))
		}
		ks, err := cardsig.ParseKeySet(data)
		if err == nil {
			set, err = set.Merge(ks)
		}
		if err != nil {
			return nil, r.at(n, "%s: %s", what, KeySetError(file, data, err))
		}
	}
	return set, nil
}

// readThumbprints reads a list of RFC 7638 SHA-256 thumbprints: 43
// characters of unpadded base64url.
func (r trustReader) readThumbprints(what string, v ast.Node) ([]string, error) {
	seq, ok := v.(*ast.SequenceNode)
	if !ok {
		return nil, r.at(v, "%s: want a list of JWK thumbprints (RFC 7638, SHA-256, base64url), got %s", what, NodeKind(v))
	}
	var out []string
	for _, n := range seq.Values {
		s, ok := Scalar(n)
		if !ok || len(s) != 43 || strings.Trim(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_") != "" {
			return nil, r.at(n, "%s: %s is not a JWK thumbprint (43 characters of base64url: cardscan verify --explain prints a key's)", what, NodeKind(n))
		}
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out, nil
}

// readRoots reads x5c-roots: "system", or a PEM bundle of CA certificates.
func (r trustReader) readRoots(v ast.Node) (*x509.CertPool, error) {
	s, ok := Scalar(v)
	if !ok || s == "" {
		return nil, r.at(v, "x5c-roots: want system or a PEM file of CA certificates, got %s", NodeKind(v))
	}
	if s == "system" {
		return nil, nil
	}
	file := s
	if !filepath.IsAbs(file) {
		file = filepath.Join(r.dir, file)
	}
	pem, err := readNamed(file, maxPEM)
	if err != nil {
		return nil, r.at(v, "x5c-roots: %s: %s", file, pathErr(err))
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, r.at(v, "x5c-roots: %s holds no PEM certificate", file)
	}
	return pool, nil
}

// ParseNow reads --now: an RFC 3339 time; nil for "".
func ParseNow(s string) (func() time.Time, error) {
	if s == "" {
		return nil, nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return nil, fmt.Errorf("--now %q: want an RFC 3339 time such as 2026-03-01T12:00:00Z", s)
	}
	return func() time.Time { return t }, nil
}

// pathErr drops the operation and path an *os.PathError repeats.
func pathErr(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// ReadKeySet reads a JWK Set file of at most a jku's size.
func ReadKeySet(path string) ([]byte, error) {
	return readLimited(path, maxKeySet)
}

// readNamed reads a file a policy names, of at most limit bytes. Only a
// regular file is opened: a policy file arrives with a pull request, and
// a FIFO it named would block the run until something wrote to it, a
// device would be read as a key set. (A --keys or --trust flag may name
// a FIFO, as a shell's <(...) makes: the user chose it.)
func readNamed(path string, limit int64) ([]byte, error) {
	st, err := os.Stat(path)
	switch {
	case err != nil:
		return nil, err
	case st.IsDir():
		return nil, errors.New("is a directory")
	case !st.Mode().IsRegular():
		return nil, errors.New("not a regular file")
	}
	return readLimited(path, limit)
}

// readLimited reads path, refusing a file of more than limit bytes.
func readLimited(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("larger than %d bytes", limit)
	}
	return data, nil
}
