// Package webasset serves a page's embedded assets for the board page
// (sabotd) and the pit console (sabot pit): the assets' version (a hash
// of their names and contents, which a page compares with the one its
// server reports to reload itself after an upgrade), the static file
// handler and the security headers every response of those servers
// carries.
package webasset

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"net/http"
)

// Assets is one directory of web assets and their version.
type Assets struct {
	// FS holds the files, named relative to the directory.
	FS fs.FS
	// Version is the first 12 hex digits of the SHA-256 of every regular
	// file in FS, in fs.WalkDir's (lexical) order, each as its path, a
	// NUL, its length in decimal, a NUL, then its bytes.
	Version string
}

// Load returns the directory dir of files (an embed.FS, as a rule) and
// its version. The error (prefixed "webasset:") is the first one met
// opening dir or walking or reading a file in it.
func Load(files fs.FS, dir string) (Assets, error) {
	sub, err := fs.Sub(files, dir)
	if err != nil {
		return Assets{}, fmt.Errorf("webasset: %s: %w", dir, err)
	}
	v, err := Version(sub)
	if err != nil {
		return Assets{}, fmt.Errorf("webasset: %s: %w", dir, err)
	}
	return Assets{FS: sub, Version: v}, nil
}

// Version is the version of the files in fsys (see Assets.Version). The
// error (prefixed "webasset:") is the first one met walking or reading.
func Version(fsys fs.FS) (string, error) {
	sum := sha256.New()
	err := fs.WalkDir(fsys, ".", func(path string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		b, err := fs.ReadFile(fsys, path)
		if err != nil {
			return err
		}
		fmt.Fprintf(sum, "%s\x00%d\x00", path, len(b))
		sum.Write(b)
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("webasset: %w", err)
	}
	return hex.EncodeToString(sum.Sum(nil))[:12], nil
}

// Files serves the assets by path (http.FileServerFS: Content-Type by
// name, If-Modified-Since and ranges). A cacheControl other than "" is
// set as the Cache-Control header of every response ("no-cache": the
// browser revalidates each time, so an upgrade's assets are seen at once).
func (a Assets) Files(cacheControl string) http.Handler {
	static := http.FileServerFS(a.FS)
	if cacheControl == "" {
		return static
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", cacheControl)
		static.ServeHTTP(w, r)
	})
}

// Headers are the security headers of a page's responses.
type Headers struct {
	// CSP is the Content-Security-Policy header ("" sets none).
	CSP string
	// Referrer is the Referrer-Policy header ("" sets none).
	Referrer string
	// DenyFrames sets X-Frame-Options: DENY.
	DenyFrames bool
	// HSTS sets Strict-Transport-Security: max-age=31536000 (one year);
	// only for a server reached over HTTPS.
	HSTS bool
}

// Secure wraps h: every response first gets X-Content-Type-Options:
// nosniff and the headers hd names, then h serves the request (and may
// set others).
func Secure(h http.Handler, hd Headers) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		wh := w.Header()
		wh.Set("X-Content-Type-Options", "nosniff")
		if hd.CSP != "" {
			wh.Set("Content-Security-Policy", hd.CSP)
		}
		if hd.Referrer != "" {
			wh.Set("Referrer-Policy", hd.Referrer)
		}
		if hd.DenyFrames {
			wh.Set("X-Frame-Options", "DENY")
		}
		if hd.HSTS {
			wh.Set("Strict-Transport-Security", "max-age=31536000")
		}
		h.ServeHTTP(w, r)
	})
}
