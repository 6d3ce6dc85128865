// Package version gives the version string of the project's programs
// (sabotd, sabot): the one set at build time with
// -ldflags "-X main.version=v1.2.3" (.ci/package), else the module's
// version from the build information with the commit's first 12 hex
// digits, else "(devel)".
package version

import "runtime/debug"

// String returns linked (main.version) when it is set, else the version
// the build information gives, else "(devel)".
func String(linked string) string {
	if linked != "" {
		return linked
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		v := bi.Main.Version
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" && len(s.Value) >= 12 {
				v += " (" + s.Value[:12] + ")"
			}
		}
		if v != "" {
			return v
		}
	}
	return "(devel)"
}
