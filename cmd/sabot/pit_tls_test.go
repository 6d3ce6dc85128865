package main

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"net/http/cookiejar"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sabot-table/sabot/drivers/mqtt/embedded"
	"github.com/sabot-table/sabot/drivers/testenv"
)

// selfSigned writes a certificate for 127.0.0.1 and its key; it returns
// their paths and a pool trusting it.
func selfSigned(t *testing.T) (cert, key string, pool *x509.CertPool) {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "pit"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &k.PublicKey, k)
	if err != nil {
		t.Fatal(err)
	}
	kd, _ := x509.MarshalECPrivateKey(k)
	dir := t.TempDir()
	cert, key = filepath.Join(dir, "pit.crt"), filepath.Join(dir, "pit.key")
	os.WriteFile(cert, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600)
	os.WriteFile(key, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kd}), 0o600)
	c, _ := x509.ParseCertificate(der)
	pool = x509.NewCertPool()
	pool.AddCert(c)
	return cert, key, pool
}

// syncWriter is a log written by runPit and read by the test.
type syncWriter struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (w *syncWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func (w *syncWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

// runPitAsync runs `sabot pit args` until the test ends; it returns its
// log and a function that stops it and returns its exit status.
func runPitAsync(t *testing.T, args ...string) (*syncWriter, func() int) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	log := &syncWriter{}
	done := make(chan int, 1)
	go func() { done <- run(ctx, append([]string{"pit"}, args...), strings.NewReader(""), log, log) }()
	stop := func() int { cancel(); return <-done }
	t.Cleanup(func() { cancel() })
	testenv.Wait(t, "the console serving", 10*time.Second, func() bool { return strings.Contains(log.String(), "pit: serving") })
	return log, stop
}

// With a certificate the console serves HTTPS: the session cookie is
// Secure and __Host- named, and HSTS is set; it says nothing of plain HTTP.
func TestPitHTTPS(t *testing.T) {
	b, err := embedded.StartOpen("", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	cert, key, pool := selfSigned(t)
	port := testenv.FreePort(t)
	log, stop := runPitAsync(t, "--broker", b.URL(), "--users", usersFile(t, "alice:pw"), "--tls-cert", cert, "--tls-key", key,
		"--listen", fmt.Sprintf("127.0.0.1:%d", port))
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	url := fmt.Sprintf("https://127.0.0.1:%d", port)
	req, _ := http.NewRequest("POST", url+"/api/login", strings.NewReader(`{"user":"alice","password":"pw"}`))
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Strict-Transport-Security"), "max-age=") {
		t.Fatalf("login over HTTPS: %d, HSTS %q", resp.StatusCode, resp.Header.Get("Strict-Transport-Security"))
	}
	ck := resp.Cookies()
	if len(ck) != 1 || ck[0].Name != "__Host-sabot-pit" || !ck[0].Secure || !ck[0].HttpOnly || ck[0].SameSite != http.SameSiteStrictMode || ck[0].Path != "/" {
		t.Errorf("cookie %+v", ck)
	}
	// Plain HTTP gets Go's TLS server's 400, never the page.
	if resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/", port)); err == nil {
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("plain HTTP on the HTTPS port: %d", resp.StatusCode)
		}
	}
	if code := stop(); code != 0 {
		t.Errorf("exit %d", code)
	}
	if l := log.String(); strings.Contains(l, "plain HTTP") || !strings.Contains(l, "url=https://") {
		t.Errorf("log:\n%s", l)
	}
}

// Plain HTTP off loopback works, with a warning; on loopback, none.
func TestPitPlainHTTPWarning(t *testing.T) {
	b, err := embedded.StartOpen("", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	users := usersFile(t, "alice:pw")
	log, stop := runPitAsync(t, "--broker", b.URL(), "--users", users, "--listen", fmt.Sprintf("0.0.0.0:%d", testenv.FreePort(t)))
	stop()
	if !strings.Contains(log.String(), "serving plain HTTP on a non-loopback address") {
		t.Errorf("no warning:\n%s", log.String())
	}
	log, stop = runPitAsync(t, "--broker", b.URL(), "--users", users, "--listen", fmt.Sprintf("127.0.0.1:%d", testenv.FreePort(t)))
	stop()
	if strings.Contains(log.String(), "plain HTTP") {
		t.Errorf("a warning on loopback:\n%s", log.String())
	}
}
