package mqtt

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	paho "github.com/eclipse/paho.mqtt.golang"
	"github.com/sabot-table/sabot/drivers/testenv"
)

// testPKI is a CA made for one test, with a server certificate for
// "broker.sabot.test" (no IP address, so only ServerName verifies it) and a
// client certificate.
type testPKI struct {
	dir                                string
	ca, serverCert, serverKey, cliCert string
	cliKey                             string
	// client makes another client certificate, for the common name cn,
	// and returns its certificate and key files.
	client func(cn string) (cert, key string)
}

func writePEM(t testing.TB, path, typ string, der []byte) {
	t.Helper()
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
}

func newTestPKI(t testing.TB) testPKI {
	t.Helper()
	dir := t.TempDir()
	p := testPKI{dir: dir, ca: filepath.Join(dir, "ca.pem"), serverCert: filepath.Join(dir, "server.pem"),
		serverKey: filepath.Join(dir, "server.key"), cliCert: filepath.Join(dir, "client.pem"), cliKey: filepath.Join(dir, "client.key")}
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "Sabot test CA"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	caCert, _ := x509.ParseCertificate(caDER)
	writePEM(t, p.ca, "CERTIFICATE", caDER)
	leaf := func(serial int64, cn string, usage x509.ExtKeyUsage, dns []string, certPath, keyPath string) {
		key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		tmpl := &x509.Certificate{SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: cn}, DNSNames: dns,
			NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour),
			KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{usage}}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, caCert, &key.PublicKey, caKey)
		if err != nil {
			t.Fatal(err)
		}
		writePEM(t, certPath, "CERTIFICATE", der)
		kb, err := x509.MarshalPKCS8PrivateKey(key)
		if err != nil {
			t.Fatal(err)
		}
		writePEM(t, keyPath, "PRIVATE KEY", kb)
	}
	leaf(2, "broker.sabot.test", x509.ExtKeyUsageServerAuth, []string{"broker.sabot.test"}, p.serverCert, p.serverKey)
	leaf(3, "sabotd-T1", x509.ExtKeyUsageClientAuth, nil, p.cliCert, p.cliKey)
	serial := int64(3)
	p.client = func(cn string) (string, string) {
		serial++
		cert, key := filepath.Join(dir, cn+".pem"), filepath.Join(dir, cn+".key")
		leaf(serial, cn, x509.ExtKeyUsageClientAuth, nil, cert, key)
		return cert, key
	}
	return p
}

// mosquittoPasswd (re)writes a mosquitto password file entry.
func mosquittoPasswd(t testing.TB, file, user, pass string) {
	t.Helper()
	bin := testenv.NeedProgram(t, "mosquitto_passwd")
	args := []string{"-b", file, user, pass}
	if _, err := os.Stat(file); err != nil {
		args = append([]string{"-c"}, args...)
	}
	if out, err := exec.Command(bin, args...).CombinedOutput(); err != nil {
		t.Fatalf("mosquitto_passwd: %v: %s", err, out)
	}
}

// TLS with a CA, client certificates and the server name, password
// authentication, and broker failover; a wrong password gives a clear error
// and endless retries without a crash, and once the broker accepts the
// password the queued messages go out.
func TestMosquittoTLSAndPassword(t *testing.T) {
	pki := newTestPKI(t)
	passwd := filepath.Join(pki.dir, "passwd")
	mosquittoPasswd(t, passwd, "sabotd-T1", "s3cret pass")
	mosquittoPasswd(t, passwd, "sabotd-T2", "right")
	mosquittoPasswd(t, passwd, "scoreboard", "board")
	m := newMosquitto(t, "listener %PORT% 127.0.0.1\ncafile "+pki.ca+"\ncertfile "+pki.serverCert+"\nkeyfile "+pki.serverKey+
		"\nrequire_certificate true\nallow_anonymous false\npassword_file "+passwd+"\n", "")
	m.Start()
	url := fmt.Sprintf("ssl://127.0.0.1:%d", m.Port)

	tlsOpts := TLSOptions{CAFile: pki.ca, CertFile: pki.cliCert, KeyFile: pki.cliKey, ServerName: "broker.sabot.test"}
	subTLS, err := tlsOpts.config()
	if err != nil {
		t.Fatal(err)
	}
	sub := newSubscriber(t, url, "scoreboard-tls", "sabot/#", func(o *paho.ClientOptions) {
		o.SetTLSConfig(subTLS).SetUsername("scoreboard").SetPassword("board")
	})

	// Failover: the first broker is down.
	dead := fmt.Sprintf("ssl://127.0.0.1:%d", testenv.FreePort(t))
	pwFile := filepath.Join(pki.dir, "sabotd-T1.password")
	if err := os.WriteFile(pwFile, []byte("s3cret pass\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	o := testOptions("T1", t.TempDir(), dead, url)
	o.Username, o.PasswordFile, o.TLS = "sabotd-T1", pwFile, tlsOpts
	p := startPublisher(t, o)
	events := shoeEvents(t, "T1")[:60]
	publishEvents(t, p, events, 0)
	want := expectedIDs(t, events)
	got := sub.waitIDs(t, want, 30*time.Second)
	if len(got) < len(want) {
		t.Fatalf("got %d ids", len(got))
	}
	if st := p.Status(); st.Broker != url || !st.Connected {
		t.Fatalf("status %+v, want connected to %s", st, url)
	}

	// Wrong password (from the environment): a clear error, retries, no crash.
	t.Setenv("SABOT_TEST_MQTT_PASSWORD", "wrong")
	o2 := testOptions("T2", t.TempDir(), url)
	o2.Username, o2.PasswordEnv, o2.TLS = "sabotd-T2", "SABOT_TEST_MQTT_PASSWORD", tlsOpts
	p2 := startPublisher(t, o2)
	ev2 := shoeEvents(t, "T2")[:5]
	publishEvents(t, p2, ev2, 0)
	waitFor(t, "three refused connection attempts", 20*time.Second, func() bool { return p2.Status().ConnectAttempts >= 3 })
	st := p2.Status()
	if st.Connected || !(strings.Contains(st.LastError, "not Authorized") || strings.Contains(st.LastError, "bad user name or password")) {
		t.Fatalf("status with a wrong password: %+v", st)
	}
	if strings.Contains(st.LastError, "wrong") {
		t.Fatalf("the password appears in the error: %s", st.LastError)
	}
	// The broker's operator fixes the password file: the retries succeed.
	mosquittoPasswd(t, passwd, "sabotd-T2", "wrong")
	m.Reload()
	want2 := expectedIDs(t, ev2)
	got = sub.waitIDs(t, want2, 30*time.Second)
	if !containsAll(got, want2) {
		t.Fatal("T2 messages missing")
	}

	// Without the client certificate the broker refuses the TLS handshake.
	o3 := testOptions("T3", t.TempDir(), url)
	o3.Username, o3.Password, o3.TLS = "sabotd-T1", "s3cret pass", TLSOptions{CAFile: pki.ca, ServerName: "broker.sabot.test"}
	p3 := startPublisher(t, o3)
	waitFor(t, "a refused handshake", 20*time.Second, func() bool { return p3.Status().ConnectAttempts >= 1 })
	if p3.Status().Connected {
		t.Fatal("connected without a client certificate")
	}
	// Without the server name the certificate (no IP SAN) does not verify.
	o4 := testOptions("T4", t.TempDir(), url)
	o4.Username, o4.Password, o4.TLS = "sabotd-T1", "s3cret pass", TLSOptions{CAFile: pki.ca, CertFile: pki.cliCert, KeyFile: pki.cliKey}
	p4 := startPublisher(t, o4)
	waitFor(t, "a certificate error", 20*time.Second, func() bool { return p4.Status().ConnectAttempts >= 1 })
	if st := p4.Status(); st.Connected || !strings.Contains(st.LastError, "certificate") {
		t.Fatalf("status without server name: %+v", st)
	}
}

func TestOptionsErrors(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name string
		o    Options
		want string
	}{
		{"no table", Options{StateDir: dir}, "mqtt: table"},
		{"bad table", Options{Table: "T/1", StateDir: dir}, `table "T/1"`},
		{"no state dir", Options{Table: "T1"}, "state directory"},
		{"bad scheme", Options{Table: "T1", StateDir: dir, Brokers: []string{"http://x:1"}}, `scheme "http"`},
		{"no host", Options{Table: "T1", StateDir: dir, Brokers: []string{"tcp://"}}, "no host"},
		{"bad prefix", Options{Table: "T1", StateDir: dir, TopicPrefix: "sabot/#"}, "topic_prefix"},
		{"missing password file", Options{Table: "T1", StateDir: dir, Username: "u", PasswordFile: filepath.Join(dir, "nope")}, "password_file"},
		{"unset env", Options{Table: "T1", StateDir: dir, Username: "u", PasswordEnv: "SABOT_TEST_UNSET_VAR"}, "SABOT_TEST_UNSET_VAR is not set"},
		{"password no user", Options{Table: "T1", StateDir: dir, Password: "x"}, "no username"},
		{"missing CA", Options{Table: "T1", StateDir: dir, Brokers: []string{"ssl://h:8883"}, TLS: TLSOptions{CAFile: filepath.Join(dir, "ca.pem")}}, "tls_ca"},
		{"cert without key", Options{Table: "T1", StateDir: dir, TLS: TLSOptions{CertFile: "c.pem"}}, "together"},
	}
	for _, c := range cases {
		p, err := New(c.o)
		if err == nil {
			p.Close(t.Context())
			t.Errorf("%s: no error", c.name)
			continue
		}
		if !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "mqtt: ") {
			t.Errorf("%s: err = %v, want it to contain %q", c.name, err, c.want)
		}
	}
	// The password never shows in logs of the options.
	o := Options{Table: "T1", Username: "u", Password: "hunter2", Brokers: []string{"tcp://u:hunter2@h:1883"}}
	var b strings.Builder
	logTo(&b).Info("options", "mqtt", o)
	if strings.Contains(b.String(), "hunter2") || !strings.Contains(b.String(), "(set)") {
		t.Fatalf("log line: %s", b.String())
	}
}

// Client certificates as the identity: a Mosquitto that requires one and
// takes its common name as the username (use_identity_as_username), with
// the shipped example ACL. The daemon of T1, with a certificate for "T1"
// and no password, publishes its messages, which reach the pit; T2's
// daemon, with a certificate for "T2", cannot publish on T1's topics; a
// certificate for "pit" sends a command T1's daemon takes.
func TestMosquittoClientCertificateIdentity(t *testing.T) {
	pki := newTestPKI(t)
	acl, _ := filepath.Abs(exampleACL)
	m := newMosquitto(t, "listener %PORT% 127.0.0.1\ncafile "+pki.ca+"\ncertfile "+pki.serverCert+"\nkeyfile "+pki.serverKey+
		"\nrequire_certificate true\nuse_identity_as_username true\nallow_anonymous false\nacl_file "+acl+"\n", "")
	m.Start()
	url := fmt.Sprintf("ssl://127.0.0.1:%d", m.Port)
	as := func(cn string) TLSOptions {
		cert, key := pki.client(cn)
		return TLSOptions{CAFile: pki.ca, CertFile: cert, KeyFile: key, ServerName: "broker.sabot.test"}
	}
	pitTLS, err := as("pit").config()
	if err != nil {
		t.Fatal(err)
	}
	pit := newSubscriber(t, url, "pit-cert", "sabot/#", func(o *paho.ClientOptions) { o.SetTLSConfig(pitTLS) })

	var cmds []string
	var mu sync.Mutex
	o := testOptions("T1", t.TempDir(), url)
	o.TLS = as("T1")
	o.Commands = true
	o.OnCommand = func(c Command) error {
		mu.Lock()
		defer mu.Unlock()
		cmds = append(cmds, c.Name+"/"+c.RequestID)
		return nil
	}
	p := startPublisher(t, o)
	events := shoeEvents(t, "T1")[:20]
	publishEvents(t, p, events, 0)
	want := expectedIDs(t, events)
	if got := pit.waitIDs(t, want, 30*time.Second); len(got) < len(want) {
		t.Fatalf("the pit got %d of T1's %d messages", len(got), len(want))
	}

	// T2's daemon, named by its certificate, writes under T1: dropped.
	t2TLS, err := as("T2").config()
	if err != nil {
		t.Fatal(err)
	}
	c := paho.NewClient(paho.NewClientOptions().AddBroker(url).SetClientID("t2-cert").SetTLSConfig(t2TLS).SetProtocolVersion(4))
	if tok := c.Connect(); !tok.WaitTimeout(10*time.Second) || tok.Error() != nil {
		t.Fatalf("T2 by certificate: %v", tok.Error())
	}
	defer c.Disconnect(50)
	c.Publish("sabot/T1/card", 1, false, `{"id":"T1/forged/0/card/1"}`).WaitTimeout(5 * time.Second)
	c.Publish("sabot/T1/cmd/void", 1, false, `{"request_id":"forged","operator":"alice"}`).WaitTimeout(5 * time.Second)

	// The pit's certificate sends a command; its reply comes back after
	// anything T2's client got through.
	if tok := pit.C.Publish("sabot/T1/cmd/ack", 1, false, `{"request_id":"c1","operator":"alice"}`); !tok.WaitTimeout(5*time.Second) || tok.Error() != nil {
		t.Fatal(tok.Error())
	}
	waitFor(t, "the ack's reply", 20*time.Second, func() bool {
		for _, r := range pit.got.snapshot() {
			if r.topic == "cmd/ack/reply" {
				return true
			}
		}
		return false
	})
	for _, r := range pit.got.snapshot() {
		if strings.Contains(string(r.payload), "forged") {
			t.Errorf("T2's forged message reached the pit: %s %s", r.topic, r.payload)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if strings.Join(cmds, " ") != "ack/c1" {
		t.Errorf("T1's daemon took %v, want only the pit's ack", cmds)
	}
}
