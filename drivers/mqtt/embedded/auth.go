package embedded

// Authentication and access control of the embedded broker, in Mosquitto's
// file formats (mosquitto.conf(5) password_file and acl_file), so that one
// set of files serves the embedded broker and a Mosquitto.
//
// mochi-mqtt's own auth hook (hooks/auth, a Ledger) was the first choice
// and cannot say what these files say: it compares plain-text passwords
// (Mosquitto's files hold PBKDF2 hashes), allows whatever no rule matches
// (an acl_file denies it), takes the first rule matching a client (a
// Mosquitto deny wins over any grant), cannot tell an anonymous client
// from a rule for every user, and has no %u/%c patterns. So this file
// keeps mochi's hook interface (OnConnectAuthenticate, OnACLCheck) and
// implements the two file formats behind it.

import (
	"crypto/subtle"
	"log/slog"
	"sync/atomic"

	mochi "github.com/mochi-mqtt/server/v2"
	"github.com/mochi-mqtt/server/v2/packets"
	"golang.org/x/time/rate"

	"github.com/sabot-table/sabot/drivers/mqtt/embedded/mosqauth"
)

// OwnUser is the username of the daemon's own clients on the
// embedded broker (its publisher, the demo's check). Their password is
// drawn at random when the broker starts (Broker.Credentials);
// a password file may not name this user.
const OwnUser = mosqauth.ReservedUser

// Failed logins to the embedded broker are checked at most
// authFailRate a second (bursts of authFailBurst); past it a login is
// refused unchecked and counted (Broker.LoginsRefused). Every
// client of the embedded broker may come from loopback, so the bound is
// the broker's, not an address's: at most 20 guesses a second, for ever.
const (
	authFailRate  = 10
	authFailBurst = 20
)

// Options configures Start.
type Options struct {
	// Addr is where to listen, host:port ("" is "127.0.0.1:0", a free
	// port). An address that is not loopback needs PasswordFile.
	Addr string
	// Logger may be nil (discard).
	Logger *slog.Logger
	// PasswordFile is a Mosquitto password file (mosquitto_passwd): its
	// users may connect with their passwords.
	PasswordFile string
	// ACLFile is a Mosquitto acl_file saying what each user, and the
	// anonymous clients, may read and write. Without one, the password
	// file's users may read and write everything and anonymous clients
	// (AllowAnonymous) may only read.
	ACLFile string
	// AllowAnonymous lets clients without a username connect (Mosquitto's
	// allow_anonymous); what they may do is the ACL's.
	AllowAnonymous bool
	// Open lets every client connect and do anything, as the embedded
	// broker did before it had authentication: for tests and examples on
	// loopback only. The other fields must be empty.
	Open bool
}

// embeddedAuth is the embedded broker's authentication and ACL hook.
type embeddedAuth struct {
	mochi.HookBase
	srv       *mochi.Server
	open      bool
	ownPass   []byte
	users     map[string]mosqauth.Hash
	acl       *mosqauth.ACL // nil: none
	anonymous bool
	fails     *rate.Limiter
	refused   atomic.Uint64 // logins refused unchecked (over the rate)
	failed    atomic.Uint64 // logins refused after checking
	log       *slog.Logger
	logLim    *rate.Limiter
}

// ID names the hook for mochi-mqtt.
func (h *embeddedAuth) ID() string { return "sabot-embedded-auth" }

// Provides says which of mochi-mqtt's hook events the hook takes.
func (h *embeddedAuth) Provides(b byte) bool {
	return b == mochi.OnConnectAuthenticate || b == mochi.OnACLCheck
}

// OnConnectAuthenticate lets in the daemon's own clients (OwnUser
// and the broker's password), a password file's users with their
// passwords, and anonymous clients if allowed; past the failure rate, no
// one but the daemon's own clients.
func (h *embeddedAuth) OnConnectAuthenticate(cl *mochi.Client, pk packets.Packet) bool {
	if h.open {
		return true
	}
	user := string(pk.Connect.Username)
	if !h.login(user, pk.Connect.Password, cl) {
		return false
	}
	// A client id names a session: taking over another user's (the
	// daemon's, with its command subscription and its queue) would
	// disconnect it and receive what is sent to it.
	if h.srv != nil {
		if old, ok := h.srv.Clients.Get(cl.ID); ok && string(old.Properties.Username) != user {
			return h.fail(cl, user, "client id in use by another user")
		}
	}
	return true
}

// login checks a user's password (anonymous: user "").
func (h *embeddedAuth) login(user string, password []byte, cl *mochi.Client) bool {
	if user == OwnUser {
		if subtle.ConstantTimeCompare(password, h.ownPass) == 1 {
			return true
		}
		return h.fail(cl, user, "wrong password")
	}
	if user == "" {
		if h.anonymous {
			return true
		}
		return h.fail(cl, user, "anonymous clients not allowed")
	}
	if h.fails.Tokens() < 1 {
		h.refused.Add(1)
		return h.fail(cl, user, "too many failed logins; refused unchecked")
	}
	hash, ok := h.users[user]
	if !ok {
		mosqauth.Dummy.Verify(password) // a login takes as long whether or not its user exists
		h.fails.Allow()
		return h.fail(cl, user, "unknown user")
	}
	if !hash.Verify(password) {
		h.fails.Allow()
		return h.fail(cl, user, "wrong password")
	}
	return true
}

// fail counts and logs (at most once a second) a refused login.
func (h *embeddedAuth) fail(cl *mochi.Client, user, why string) bool {
	h.failed.Add(1)
	if h.logLim.Allow() {
		h.log.Warn("embedded: embedded broker: login refused", "user", user, "client", cl.ID, "remote", cl.Net.Remote, "reason", why)
	}
	return false
}

// OnACLCheck says whether the client may read (subscribe to, receive) or
// write (publish to) topic: the daemon's own clients everything; with an
// ACL, what it grants; without one, a password file's users everything
// and anonymous clients reading only.
func (h *embeddedAuth) OnACLCheck(cl *mochi.Client, topic string, write bool) bool {
	if h.open {
		return true
	}
	user := string(cl.Properties.Username)
	if user == OwnUser {
		return true // authenticated as such, or not connected
	}
	if h.acl == nil {
		return user != "" || !write
	}
	return h.acl.Allows(user, cl.ID, topic, write)
}
