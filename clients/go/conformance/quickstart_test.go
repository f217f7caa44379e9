package conformance

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
)

// The quickstart of docs/clients.md, built and run as a user would against two real replicas and
// PostgreSQL.
func TestTheQuickstartBuildsAndReservesWithAFencingToken(t *testing.T) {
	c, pg := theCluster(t), thePostgres(t)
	bin := filepath.Join(t.TempDir(), "quickstart")
	build := exec.Command("go", "build", "-o", bin, "./examples/quickstart")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v: %s", err, out)
	}
	run := exec.Command(bin, c.a.url(), c.b.url())
	run.Env = append(os.Environ(), "ZKFENCE_API_KEY="+appKey, "DATABASE_URL="+pg.dsn())
	out, err := run.CombinedOutput()
	if err != nil || !regexp.MustCompile(`reserved sku 123 with fencing token \d+`).Match(out) {
		t.Fatalf("%v: %s", err, out)
	}
}
