package webasset

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"
)

// TestVersion: the version is the hash of the names, lengths and bytes in
// lexical order; the figures were computed outside Go with
// printf 'a.css\0003\000x{}d/b.js\0001\0001' | sha256sum (and ...0002).
func TestVersion(t *testing.T) {
	files := fstest.MapFS{
		"web/a.css":  {Data: []byte("x{}")},
		"web/d/b.js": {Data: []byte("1")},
		"other/c.js": {Data: []byte("not in web")},
	}
	a, err := Load(files, "web")
	if err != nil {
		t.Fatal(err)
	}
	if a.Version != "dac50a313fa4" {
		t.Errorf("version %q, want dac50a313fa4", a.Version)
	}
	files["web/d/b.js"] = &fstest.MapFile{Data: []byte("2")}
	if v, err := Version(a.FS); err != nil || v != "0ddb431726ef" {
		t.Errorf("after an edit: version %q, %v; want 0ddb431726ef", v, err)
	}
	if _, err := Load(files, "missing"); err == nil || !strings.HasPrefix(err.Error(), "webasset: missing: ") {
		t.Errorf("a missing directory: err %v", err)
	}
}

// TestFilesAndHeaders: the files are served with their type, the cache
// header when asked for, and the security headers asked for (and no
// others).
func TestFilesAndHeaders(t *testing.T) {
	a, err := Load(fstest.MapFS{"web/p.css": {Data: []byte("p{}")}}, "web")
	if err != nil {
		t.Fatal(err)
	}
	get := func(h http.Handler, path string) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
		return rec
	}
	full := Secure(a.Files("no-cache"), Headers{CSP: "default-src 'none'", Referrer: "same-origin", DenyFrames: true, HSTS: true})
	rec := get(full, "/p.css")
	if rec.Code != 200 || rec.Body.String() != "p{}" {
		t.Fatalf("GET /p.css: %d %q", rec.Code, rec.Body.String())
	}
	for k, v := range map[string]string{
		"Content-Type": "text/css; charset=utf-8", "Cache-Control": "no-cache",
		"X-Content-Type-Options": "nosniff", "Content-Security-Policy": "default-src 'none'",
		"Referrer-Policy": "same-origin", "X-Frame-Options": "DENY", "Strict-Transport-Security": "max-age=31536000",
	} {
		if got := rec.Header().Get(k); got != v {
			t.Errorf("%s: %q, want %q", k, got, v)
		}
	}
	rec = get(Secure(a.Files(""), Headers{}), "/p.css")
	for _, k := range []string{"Cache-Control", "Content-Security-Policy", "Referrer-Policy", "X-Frame-Options", "Strict-Transport-Security"} {
		if got := rec.Header().Get(k); got != "" {
			t.Errorf("%s set to %q, not asked for", k, got)
		}
	}
	if got := rec.Header().Get("X-Content-Type-Options"); got != "nosniff" {
		t.Errorf("X-Content-Type-Options %q, want nosniff", got)
	}
	if rec = get(full, "/none.js"); rec.Code != 404 {
		t.Errorf("GET /none.js: %d, want 404", rec.Code)
	}
}
