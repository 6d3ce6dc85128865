package pit

// The pit console's logins: users and bcrypt hashes in a file, sessions
// in memory behind a random cookie, a CSRF token per session.

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"time"

	"golang.org/x/crypto/bcrypt"
)

// Bounds of the logins (docs/operations.md's bounds table).
const (
	// maxPitUsersFile is the largest users file read (bytes), and
	// maxPitUsers the most users in it.
	maxPitUsersFile = 1 << 20
	maxPitUsers     = 1000
	// maxPitSessions bounds the live sessions: past it the session that
	// expires first is dropped.
	maxPitSessions = 256
	// DefaultSessionTTL is how long a login lasts (--session-ttl).
	DefaultSessionTTL = 12 * time.Hour
	// pitBcryptParallel bounds the password checks running at once (each
	// takes tens of milliseconds of CPU by design); a login finding them
	// all busy is answered 503.
	pitBcryptParallel = 2
	// DefaultHashCost is the bcrypt cost --hash-password uses by default.
	DefaultHashCost = 12
	// maxPitPassword is the longest password accepted (bcrypt reads 72
	// bytes at most and refuses longer).
	maxPitPassword = 72
	// LoginFailures failed logins of one user name from one address
	// within pitLoginWindow lock that name out from that address, and
	// SourceFailures failed logins from one address, whatever the
	// names, lock the address out, until the window has passed since
	// the first of them (answered 429, the password not checked). A
	// lockout thus never shuts a user out from another address, and one
	// address has at most SourceFailures guesses per window.
	LoginFailures  = 5
	SourceFailures = 20
	pitLoginWindow = 5 * time.Minute
	// maxPitFailNames bounds the (name, address) pairs whose failures are
	// counted, and maxPitFailSources the addresses; past either the
	// oldest count is forgotten. An address adds at most
	// SourceFailures pairs per window, so pushing a count out takes
	// maxPitFailNames / SourceFailures addresses.
	maxPitFailNames   = 4096
	maxPitFailSources = 1024
)

// pitThrottle counts failed logins by user name and address, and by
// address.
type pitThrottle struct {
	now func() time.Time

	mu      sync.Mutex
	fails   map[string]*pitFails // name "\x00" address
	sources map[string]*pitFails // address
}

type pitFails struct {
	n     int
	first time.Time
}

func newPitThrottle(now func() time.Time) *pitThrottle {
	if now == nil {
		now = time.Now
	}
	return &pitThrottle{now: now, fails: map[string]*pitFails{}, sources: map[string]*pitFails{}}
}

// current returns m[key] if its window has not passed (else forgets it).
func (p *pitThrottle) current(m map[string]*pitFails, key string, now time.Time) *pitFails {
	f := m[key]
	if f != nil && !now.Before(f.first.Add(pitLoginWindow)) {
		delete(m, key)
		return nil
	}
	return f
}

// locked reports whether name is locked out from source, or source
// altogether, and until when.
func (p *pitThrottle) locked(name, source string) (bool, time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	if f := p.current(p.sources, source, now); f != nil && f.n >= SourceFailures {
		return true, f.first.Add(pitLoginWindow)
	}
	if f := p.current(p.fails, name+"\x00"+source, now); f != nil && f.n >= LoginFailures {
		return true, f.first.Add(pitLoginWindow)
	}
	return false, time.Time{}
}

// count adds a failure to m[key], forgetting the oldest count past max.
func (p *pitThrottle) count(m map[string]*pitFails, key string, max int, now time.Time) {
	f := p.current(m, key, now)
	if f == nil {
		if len(m) >= max {
			var oldest string
			var at time.Time
			for k, v := range m {
				if oldest == "" || v.first.Before(at) {
					oldest, at = k, v.first
				}
			}
			delete(m, oldest)
		}
		f = &pitFails{first: now}
		m[key] = f
	}
	f.n++
}

// failed counts a failed login of name from source.
func (p *pitThrottle) failed(name, source string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	p.count(p.fails, name+"\x00"+source, maxPitFailNames, now)
	p.count(p.sources, source, maxPitFailSources, now)
}

// succeeded clears name's failures from source (not the address's own
// count: a valid login between guesses does not buy more guesses).
func (p *pitThrottle) succeeded(name, source string) {
	p.mu.Lock()
	delete(p.fails, name+"\x00"+source)
	p.mu.Unlock()
}

// validUserName reports whether s can be a console user: 1–64 of
// A-Z a-z 0-9 _ . @ - (the name goes into commands as the operator, which
// the daemon takes up to 64 bytes).
func validUserName(s string) bool {
	if len(s) == 0 || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '@' || c == '-') {
			return false
		}
	}
	return true
}

// pitUsers is the users file: one "name:bcrypt-hash" a line ("#" starts
// a comment line; blank lines are skipped), as `sabot pit --hash-password`
// makes the hash. The file is read again when it changes (size or
// modification time), at the next login; a file that no longer reads
// keeps the users it had, with an error logged.
type pitUsers struct {
	path string
	log  *slog.Logger

	mu    sync.Mutex
	users map[string][]byte
	mtime time.Time
	size  int64
	// dummy is checked against for an unknown (or invalid) name, so that a
	// login takes as long whether or not the user exists: a hash at the
	// highest cost of the file's (a dummy at bcrypt's lowest cost took 3 ms
	// where a real one took 260 ms, which told names apart).
	dummy []byte
}

// loadPitUsers reads the users file; errors name the file and line.
func loadPitUsers(path string, log *slog.Logger) (*pitUsers, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	u := &pitUsers{path: path, log: log}
	if err := u.load(); err != nil {
		return nil, err
	}
	return u, nil
}

func (u *pitUsers) load() error {
	f, err := os.Open(u.path)
	if err != nil {
		return fmt.Errorf("pit: users file: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("pit: users file: %w", err)
	}
	if st.Size() > maxPitUsersFile {
		return fmt.Errorf("pit: users file %s: %d bytes, more than %d", u.path, st.Size(), maxPitUsersFile)
	}
	if perm := st.Mode().Perm(); perm&0o026 != 0 {
		return fmt.Errorf("pit: users file %s: mode %04o lets other users read its password hashes or change it (group writable or others allowed): chmod 0600, or 0640 for a group", u.path, perm)
	}
	users, err := parsePitUsers(u.path, f)
	if err != nil {
		return err
	}
	cost := bcrypt.MinCost
	for _, h := range users {
		if c, err := bcrypt.Cost(h); err == nil {
			cost = max(cost, c)
		}
	}
	u.mu.Lock()
	dummy := u.dummy
	u.mu.Unlock()
	if c, err := bcrypt.Cost(dummy); err != nil || c != cost {
		if dummy, err = bcrypt.GenerateFromPassword([]byte("sabot-pit-no-such-user"), cost); err != nil {
			return fmt.Errorf("pit: users file %s: %w", u.path, err)
		}
	}
	u.mu.Lock()
	u.users, u.mtime, u.size, u.dummy = users, st.ModTime(), st.Size(), dummy
	u.mu.Unlock()
	return nil
}

// parsePitUsers reads "name:hash" lines.
func parsePitUsers(path string, r io.Reader) (map[string][]byte, error) {
	users := map[string][]byte{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 4096), 4096)
	err := scanLines(sc, "pit: users file "+path, func(line int, text string) error {
		name, hash, ok := strings.Cut(text, ":")
		if !ok {
			return fmt.Errorf("pit: users file %s line %d: want name:bcrypt-hash", path, line)
		}
		if !validUserName(name) {
			return fmt.Errorf("pit: users file %s line %d: user name %q: 1-64 of A-Z a-z 0-9 _ . @ -", path, line, name)
		}
		if _, err := bcrypt.Cost([]byte(hash)); err != nil {
			return fmt.Errorf("pit: users file %s line %d column %d: not a bcrypt hash (make one with sabot pit --hash-password): %w",
				path, line, len(name)+2, err)
		}
		if _, dup := users[name]; dup {
			return fmt.Errorf("pit: users file %s line %d: user %q given twice", path, line, name)
		}
		if len(users) >= maxPitUsers {
			return fmt.Errorf("pit: users file %s line %d: more than %d users", path, line, maxPitUsers)
		}
		users[name] = []byte(hash)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(users) == 0 {
		return nil, fmt.Errorf("pit: users file %s: no users", path)
	}
	return users, nil
}

// refresh reads the file again if it changed.
func (u *pitUsers) refresh() {
	st, err := os.Stat(u.path)
	if err != nil {
		u.log.Error("pit: users file", "err", err)
		return
	}
	u.mu.Lock()
	same := st.ModTime().Equal(u.mtime) && st.Size() == u.size
	u.mu.Unlock()
	if same {
		return
	}
	if err := u.load(); err != nil {
		u.log.Error("pit: users file changed but does not read; keeping the users read before", "err", err)
		return
	}
	u.log.Info("pit: users file read again", "path", u.path)
}

// check reports whether password is user's. An unknown user, an invalid
// name and an over-long password are checked against the dummy hash, at
// the same cost as the real ones.
func (u *pitUsers) check(user, password string) bool {
	u.refresh()
	u.mu.Lock()
	hash, ok := u.users[user]
	dummy := u.dummy
	u.mu.Unlock()
	if !ok || len(password) > maxPitPassword {
		bcrypt.CompareHashAndPassword(dummy, []byte(password[:min(len(password), maxPitPassword)]))
		return false
	}
	return bcrypt.CompareHashAndPassword(hash, []byte(password)) == nil
}

// pitSession is one login.
type pitSession struct {
	user    string
	csrf    string
	expires time.Time
}

// pitSessions are the live logins, by the SHA-256 of their cookie's token
// (the token itself is not kept).
type pitSessions struct {
	ttl time.Duration
	now func() time.Time

	mu sync.Mutex
	m  map[[32]byte]*pitSession
}

func newPitSessions(ttl time.Duration, now func() time.Time) *pitSessions {
	if ttl <= 0 {
		ttl = DefaultSessionTTL
	}
	if now == nil {
		now = time.Now
	}
	return &pitSessions{ttl: ttl, now: now, m: map[[32]byte]*pitSession{}}
}

func randomToken() string {
	b := make([]byte, 32)
	rand.Read(b) // never fails (crypto/rand)
	return base64.RawURLEncoding.EncodeToString(b)
}

// create starts a session for user and returns its cookie token.
func (s *pitSessions) create(user string) (token string, sess pitSession) {
	token = randomToken()
	now := s.now()
	sess = pitSession{user: user, csrf: randomToken(), expires: now.Add(s.ttl)}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.m) >= maxPitSessions {
		var oldest [32]byte
		var first time.Time
		for k, v := range s.m {
			if !v.expires.After(now) {
				delete(s.m, k)
				continue
			}
			if first.IsZero() || v.expires.Before(first) {
				oldest, first = k, v.expires
			}
		}
		if len(s.m) >= maxPitSessions {
			delete(s.m, oldest)
		}
	}
	c := sess
	s.m[sha256.Sum256([]byte(token))] = &c
	return token, sess
}

// get returns the session of token, if live.
func (s *pitSessions) get(token string) (pitSession, bool) {
	if token == "" {
		return pitSession{}, false
	}
	k := sha256.Sum256([]byte(token))
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.m[k]
	if !ok {
		return pitSession{}, false
	}
	if !v.expires.After(s.now()) {
		delete(s.m, k)
		return pitSession{}, false
	}
	return *v, true
}

// drop ends the session of token.
func (s *pitSessions) drop(token string) {
	k := sha256.Sum256([]byte(token))
	s.mu.Lock()
	delete(s.m, k)
	s.mu.Unlock()
}

// csrfOK compares a request's CSRF token with the session's in constant
// time.
func csrfOK(sess pitSession, got string) bool {
	return got != "" && subtle.ConstantTimeCompare([]byte(sess.csrf), []byte(got)) == 1
}

// HashPassword reads a password (the first line of r, without its line
// end) and returns its bcrypt hash at cost.
func HashPassword(r io.Reader, cost int) (string, error) {
	br := bufio.NewReaderSize(r, 256)
	line, err := br.ReadSlice('\n')
	if err != nil && !(errors.Is(err, io.EOF) && len(line) > 0) {
		if errors.Is(err, bufio.ErrBufferFull) {
			return "", fmt.Errorf("pit: the password is longer than %d bytes", maxPitPassword)
		}
		return "", fmt.Errorf("pit: reading the password from standard input: %w", err)
	}
	pw := bytes.TrimRight(line, "\r\n")
	if len(pw) == 0 {
		return "", errors.New("pit: empty password")
	}
	if len(pw) > maxPitPassword {
		return "", fmt.Errorf("pit: the password is %d bytes, more than bcrypt's %d", len(pw), maxPitPassword)
	}
	if cost < bcrypt.MinCost || cost > bcrypt.MaxCost {
		return "", fmt.Errorf("pit: --cost %d: between %d and %d", cost, bcrypt.MinCost, bcrypt.MaxCost)
	}
	h, err := bcrypt.GenerateFromPassword(pw, cost)
	if err != nil {
		return "", fmt.Errorf("pit: %w", err)
	}
	return string(h), nil
}
