package worker

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// allowedDeps are the only tracker packages the worker may reach, directly
// or through another package: the store and the relay's outbox table, the
// durable work's shared kit (start options, search attributes, the DB
// queue's name), which holds no feature, and internal helpers (tracker/internal/...,
// among them internal/tracing and internal/traceparent, which the relay's
// dispatch span and the Temporal tracing interceptor use: no feature).
var allowedDeps = map[string]bool{
	"tracker/store":          true,
	"tracker/store/outboxdb": true,
	"tracker/workflows":      true,
}

// TestWorkerImportsNoFeature keeps worker/ down to the worker, the relay and
// registration: it reaches no feature's workflows, activities, domain or
// store (tracker/workflows/<x>, tracker/activities/..., tracker/domain/...,
// tracker/store/<x>db). A feature plugs in with a jobkind.Registration listed in
// cmd/tracker instead; features import worker/jobkind, never worker.
func TestWorkerImportsNoFeature(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		goBin = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	if _, err := os.Stat(goBin); err != nil {
		t.Fatalf("no go command to list the worker's imports: %v", err)
	}
	for _, pkg := range []string{"tracker/worker", "tracker/worker/workertest"} {
		out, err := exec.Command(goBin, "list", "-deps", "-f", "{{.ImportPath}}", pkg).CombinedOutput()
		if err != nil {
			t.Fatalf("go list -deps %s: %v\n%s", pkg, err, out)
		}
		n := 0
		for _, dep := range strings.Fields(string(out)) {
			if dep != "tracker" && !strings.HasPrefix(dep, "tracker/") {
				continue
			}
			n++
			if dep == pkg || strings.HasPrefix(dep, "tracker/worker/") || strings.HasPrefix(dep, "tracker/internal/") || allowedDeps[dep] {
				continue
			}
			t.Errorf("%s reaches %s: the worker must not import a feature; plug the feature in with a jobkind.Registration "+
				"listed in cmd/tracker/worker.go (and inject what the relay needs through it)", pkg, dep)
		}
		if n < 2 {
			t.Fatalf("go list -deps %s listed %d tracker packages; the check saw nothing:\n%s", pkg, n, out)
		}
	}
}
