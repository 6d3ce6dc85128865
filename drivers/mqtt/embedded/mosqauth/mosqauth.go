// Package mosqauth reads Mosquitto's password_file and acl_file formats
// (mosquitto.conf(5), mosquitto_passwd(1)) for the embedded broker
// (drivers/mqtt/embedded), so that one set of files serves it and a
// Mosquitto, and so that sabotd's configuration check can read them
// without linking the broker. Its errors keep the embedded broker's
// prefix ("embedded: password file ...", "embedded: acl file ..."): they
// are that broker's files.
package mosqauth

import (
	"bufio"
	"bytes"
	"crypto/pbkdf2"
	"crypto/sha512"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// ReservedUser is the username of the daemon's own clients on the
// embedded broker (embedded.OwnUser): a password file may not name it.
const ReservedUser = "sabotd"

// Dummy is a well-formed $7$ hash no password matches in practice: a login
// for an unknown user is checked against it, so that it costs what a
// known user's does.
var Dummy = Hash{kind: 7, iterations: 101, salt: bytes.Repeat([]byte{1}, 12), sum: bytes.Repeat([]byte{2}, 64)}

// Bounds of the embedded broker's files: a password or ACL file over
// maxAuthFile bytes is refused, as is a line over maxAuthLine bytes, and
// a $7$ hash over maxPBKDF2Iterations iterations (every connection of its
// user would cost that much: Mosquitto writes 101).
const (
	maxAuthFile         = 1 << 20
	maxAuthLine         = 4096
	maxPBKDF2Iterations = 1_000_000
)

// Hash is one password file entry's hash: Mosquitto's $6$ (SHA-512 of
// the password then the salt) or $7$ (PBKDF2-HMAC-SHA512 with
// iterations, 64 bytes).
type Hash struct {
	kind       int // 6 or 7
	iterations int
	salt, sum  []byte
}

// verify reports whether password hashes to h, in time independent of
// where they differ.
func (h Hash) Verify(password []byte) bool {
	var sum []byte
	switch h.kind {
	case 6:
		d := sha512.New()
		d.Write(password)
		d.Write(h.salt)
		sum = d.Sum(nil)
	case 7:
		var err error
		sum, err = pbkdf2.Key(sha512.New, string(password), h.salt, h.iterations, len(h.sum))
		if err != nil {
			return false
		}
	default:
		return false
	}
	return subtle.ConstantTimeCompare(sum, h.sum) == 1
}

// parseMosqHash reads "$6$salt$hash" or "$7$iterations$salt$hash" (salt and
// hash in standard base64).
func parseMosqHash(s string) (Hash, error) {
	parts := strings.Split(s, "$")
	if len(parts) < 2 || parts[0] != "" {
		return Hash{}, errors.New("not a Mosquitto password hash ($6$... or $7$...: make it with mosquitto_passwd)")
	}
	b64 := func(what, v string) ([]byte, error) {
		b, err := base64.StdEncoding.DecodeString(v)
		if err != nil || len(b) == 0 {
			return nil, fmt.Errorf("%s %q is not base64", what, v)
		}
		return b, nil
	}
	h := Hash{}
	var salt, sum string
	switch {
	case parts[1] == "6" && len(parts) == 4:
		h.kind, salt, sum = 6, parts[2], parts[3]
	case parts[1] == "7" && len(parts) == 5:
		n, err := strconv.Atoi(parts[2])
		if err != nil || n < 1 || n > maxPBKDF2Iterations {
			return Hash{}, fmt.Errorf("$7$ iterations %q: want 1 to %d", parts[2], maxPBKDF2Iterations)
		}
		h.kind, h.iterations, salt, sum = 7, n, parts[3], parts[4]
	default:
		return Hash{}, fmt.Errorf("hash type $%s$ not supported ($6$ and $7$ are: make it with mosquitto_passwd)", parts[1])
	}
	var err error
	if h.salt, err = b64("salt", salt); err != nil {
		return Hash{}, err
	}
	if h.sum, err = b64("hash", sum); err != nil {
		return Hash{}, err
	}
	if h.kind == 6 && len(h.sum) != sha512.Size {
		return Hash{}, fmt.Errorf("$6$ hash of %d bytes, want %d", len(h.sum), sha512.Size)
	}
	return h, nil
}

// readAuthLines reads path (at most maxAuthFile bytes, lines of at most
// maxAuthLine) and calls line for each line that is not blank or a
// comment ("#" first), with its 1-based number and its text without
// surrounding blanks. Errors name path and line.
func readAuthLines(path string, line func(n int, text string) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Size() > maxAuthFile {
		return fmt.Errorf("%s: %d bytes, over the limit of %d", path, fi.Size(), maxAuthFile)
	}
	sc := bufio.NewScanner(io.LimitReader(f, maxAuthFile+1))
	sc.Buffer(make([]byte, 0, 1024), maxAuthLine)
	n := 0
	for sc.Scan() {
		n++
		t := strings.TrimSpace(sc.Text())
		if t == "" || t[0] == '#' {
			continue
		}
		if err := line(n, t); err != nil {
			return fmt.Errorf("%s:%d: %w", path, n, err)
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return fmt.Errorf("%s:%d: line over %d bytes", path, n+1, maxAuthLine)
		}
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// LoadPasswordFile reads a Mosquitto password file ("username:hash" lines,
// as mosquitto_passwd writes them; "#" comments). It returns the users
// and their hashes; an error names the file and line (a malformed line,
// a hash type other than $6$ or $7$, a user named twice or named
// OwnUser).
func LoadPasswordFile(path string) (map[string]Hash, error) {
	users := map[string]Hash{}
	err := readAuthLines(path, func(_ int, t string) error {
		i := strings.LastIndexByte(t, ':')
		if i <= 0 {
			return errors.New(`want "username:hash"`)
		}
		user, hash := t[:i], t[i+1:]
		if user == ReservedUser {
			return fmt.Errorf("user %q is the daemon's own (embedded.OwnUser): pick another name", user)
		}
		if _, dup := users[user]; dup {
			return fmt.Errorf("user %q named twice", user)
		}
		h, err := parseMosqHash(hash)
		if err != nil {
			return fmt.Errorf("user %q: %w", user, err)
		}
		users[user] = h
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("embedded: password file %w", err)
	}
	return users, nil
}

// aclAccess is what an ACL entry grants: read (subscribe and receive),
// write (publish), both, or deny (neither, over any grant).
type aclAccess int

const (
	aclRead aclAccess = 1 << iota
	aclWrite
	aclDeny
)

// aclEntry is a topic or pattern line.
type aclEntry struct {
	access  aclAccess
	filter  string // pattern: with %u and %c
	pattern bool
	line    int
}

// ACL is a parsed Mosquitto acl_file: topic lines before the first user
// line are the anonymous clients'; topic lines after "user NAME" are
// NAME's; pattern lines, wherever they are, apply to every client, with
// %u replaced by its username and %c by its client id. Access is read,
// write, readwrite (the default) or deny. What no line grants is denied,
// and a matching deny line wins over any grant (Mosquitto 2.0's rules).
type ACL struct {
	anon     []aclEntry
	users    map[string][]aclEntry
	patterns []aclEntry
}

// LoadACLFile reads a Mosquitto acl_file. An error names the file and
// line: an unknown keyword, an access other than read, write, readwrite
// or deny, or a topic that is not a valid MQTT topic filter.
func LoadACLFile(path string) (*ACL, error) {
	a := &ACL{users: map[string][]aclEntry{}}
	user, inUser := "", false
	err := readAuthLines(path, func(n int, t string) error {
		kw, rest, _ := strings.Cut(t, " ")
		rest = strings.TrimSpace(rest)
		switch kw {
		case "user":
			if rest == "" {
				return errors.New(`"user" without a name`)
			}
			user, inUser = rest, true
			return nil
		case "topic", "pattern":
		default:
			return fmt.Errorf("%q: want user, topic or pattern", kw)
		}
		e := aclEntry{access: aclRead | aclWrite, pattern: kw == "pattern", line: n}
		if acc, topic, ok := strings.Cut(rest, " "); ok {
			switch acc {
			case "read":
				e.access, rest = aclRead, strings.TrimSpace(topic)
			case "write":
				e.access, rest = aclWrite, strings.TrimSpace(topic)
			case "readwrite":
				e.access, rest = aclRead|aclWrite, strings.TrimSpace(topic)
			case "deny":
				e.access, rest = aclDeny, strings.TrimSpace(topic)
			}
		} else if rest == "read" || rest == "write" || rest == "readwrite" || rest == "deny" {
			return fmt.Errorf("%s %s: no topic", kw, rest)
		}
		if err := checkFilter(rest); err != nil {
			return fmt.Errorf("%s %q: %w", kw, rest, err)
		}
		e.filter = rest
		switch {
		case e.pattern:
			a.patterns = append(a.patterns, e)
		case inUser:
			a.users[user] = append(a.users[user], e)
		default:
			a.anon = append(a.anon, e)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("embedded: acl file %w", err)
	}
	return a, nil
}

// checkFilter reports whether f is a valid MQTT topic filter: not empty,
// "+" and "#" only as whole levels, "#" last.
func checkFilter(f string) error {
	if f == "" {
		return errors.New("empty topic")
	}
	levels := strings.Split(f, "/")
	for i, l := range levels {
		if strings.ContainsAny(l, "+#") && len(l) > 1 {
			return fmt.Errorf("level %q: a wildcard must be a whole level", l)
		}
		if l == "#" && i != len(levels)-1 {
			return errors.New(`"#" must be the last level`)
		}
	}
	return nil
}

// Allows reports whether a client (username, "" for anonymous, and client
// id) may read (receive) or write (publish to) topic, a topic name: an
// entry whose filter matches it grants it, and a deny entry matching it
// refuses it whatever grants it. For a subscription topic is a filter,
// allowed as Mosquitto 2.0 does in effect: a subscription is granted when
// some topic it matches may be read (Mosquitto grants every one), and each
// message is checked again as it is delivered (mochi-mqtt calls OnACLCheck
// for it), so that a subscription to "sabot/+/cmd/+" by table T2 receives
// T2's commands only, on both brokers (TestExampleACLMosquitto).
func (a *ACL) Allows(username, clientID, topic string, write bool) bool {
	if !write && strings.ContainsAny(topic, "+#") {
		return a.mayRead(username, clientID, topic)
	}
	want := aclRead
	if write {
		want = aclWrite
	}
	granted := false
	ok := a.walk(username, clientID, func(e aclEntry, filter string) bool {
		if !filterCovers(filter, topic) {
			return true
		}
		if e.access&aclDeny != 0 {
			return false
		}
		if e.access&want != 0 {
			granted = true
		}
		return true
	})
	return ok && granted
}

// mayRead reports whether some topic that the subscription filter sub
// matches may be read: a read entry's filter meets sub and no deny
// entry covers all of sub.
func (a *ACL) mayRead(username, clientID, sub string) bool {
	granted := false
	ok := a.walk(username, clientID, func(e aclEntry, filter string) bool {
		if e.access&aclDeny != 0 {
			return !filterCovers(filter, sub)
		}
		if e.access&aclRead != 0 && filtersMeet(filter, sub) {
			granted = true
		}
		return true
	})
	return ok && granted
}

// walk calls check with each entry that applies to the client, in order:
// the user's entries (the anonymous ones for username ""), then each
// pattern whose substitution succeeds, with its filter substituted. It
// stops and reports false as soon as check does, and reports true when
// every call did.
func (a *ACL) walk(username, clientID string, check func(e aclEntry, filter string) bool) bool {
	entries := a.anon
	if username != "" {
		entries = a.users[username]
	}
	for _, e := range entries {
		if !check(e, e.filter) {
			return false
		}
	}
	for _, e := range a.patterns {
		if f, ok := substitute(e.filter, username, clientID); ok && !check(e, f) {
			return false
		}
	}
	return true
}

// filtersMeet reports whether some topic is matched by both filters a and
// b. A wildcard first matches no topic that starts with "$".
func filtersMeet(a, b string) bool {
	wild := func(f string) bool { return strings.HasPrefix(f, "+") || strings.HasPrefix(f, "#") }
	if (strings.HasPrefix(a, "$") && wild(b)) || (strings.HasPrefix(b, "$") && wild(a)) {
		return false
	}
	x, y := strings.Split(a, "/"), strings.Split(b, "/")
	for i := 0; ; i++ {
		switch {
		case i < len(x) && x[i] == "#", i < len(y) && y[i] == "#":
			return true
		case i == len(x) || i == len(y):
			return len(x) == len(y)
		case x[i] == "+" || y[i] == "+" || x[i] == y[i]:
		default:
			return false
		}
	}
}

// substitute puts username and clientID in a pattern's %u and %c. A
// pattern naming one the client does not have (anonymous for %u), or one
// holding a wildcard or a "/" (which would widen the pattern), does not
// apply.
func substitute(pattern, username, clientID string) (string, bool) {
	bad := func(s string) bool { return s == "" || strings.ContainsAny(s, "+#/") }
	if strings.Contains(pattern, "%u") {
		if bad(username) {
			return "", false
		}
		pattern = strings.ReplaceAll(pattern, "%u", username)
	}
	if strings.Contains(pattern, "%c") {
		if bad(clientID) {
			return "", false
		}
		pattern = strings.ReplaceAll(pattern, "%c", clientID)
	}
	return pattern, true
}

// filterCovers reports whether every topic that sub matches is matched by
// filter (MQTT 3.1.1 section 4.7): sub is a topic name or a topic filter.
// "a/#" covers "a" too; a wildcard first does not match a topic that
// starts with "$" ($SYS).
func filterCovers(filter, sub string) bool {
	if strings.HasPrefix(sub, "$") && (strings.HasPrefix(filter, "+") || strings.HasPrefix(filter, "#")) {
		return false
	}
	f, s := strings.Split(filter, "/"), strings.Split(sub, "/")
	for i, fl := range f {
		if fl == "#" {
			return true
		}
		if i >= len(s) {
			return false
		}
		switch {
		case s[i] == "#":
			return false // sub asks for more levels than filter gives
		case fl == "+":
		case s[i] == "+":
			return false
		case fl != s[i]:
			return false
		}
	}
	return len(s) == len(f)
}
