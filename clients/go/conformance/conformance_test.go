package conformance

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// One subtest per scenario of clients/conformance.json; the implementations are in
// service_test.go, scripted_test.go and fence_test.go, keyed by the scenario's id.

type scenarioSpec struct {
	ID      string `json:"id"`
	Against string `json:"against"`
	Needs   string `json:"needs"`
	Title   string `json:"title"`
}

type env struct {
	t       *testing.T
	cluster *cluster
	pg      *postgres
	key     string
}

var implementations = map[string]func(e *env){}

func scenario(id string, fn func(e *env)) bool {
	if _, twice := implementations[id]; twice {
		panic("scenario implemented twice: " + id)
	}
	implementations[id] = fn
	return true
}

func TestMain(m *testing.M) {
	if os.Getenv("ZKFENCE_PAUSED_CLIENT") != "" {
		os.Exit(pausedClientMain()) // this binary, re-run as the client process a scenario pauses
	}
	code := m.Run()
	if shared != nil {
		shared.stop()
	}
	if sharedPG != nil {
		sharedPG.stop()
	}
	os.Exit(code)
}

// The servers, started once for every test of the binary that needs them.
var (
	shared   *cluster
	sharedPG *postgres
)

func theCluster(t *testing.T) *cluster {
	if shared == nil {
		shared = startCluster(t)
	}
	shared.ensureRunning(t)
	return shared
}

func thePostgres(t *testing.T) *postgres {
	if sharedPG == nil {
		sharedPG = startPostgres(t)
	}
	return sharedPG
}

func loadScenarios(t *testing.T) []scenarioSpec {
	data, err := os.ReadFile(filepath.Join(repo, "clients", "conformance.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Scenarios []scenarioSpec `json:"scenarios"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	return doc.Scenarios
}

func TestEveryScenarioIsImplementedAndEveryImplementationNamesOne(t *testing.T) {
	ids := map[string]bool{}
	for _, s := range loadScenarios(t) {
		if ids[s.ID] {
			t.Errorf("scenario id %s is not unique", s.ID)
		}
		ids[s.ID] = true
		if implementations[s.ID] == nil {
			t.Errorf("conformance scenario %q has no implementation in the Go suite", s.ID)
		}
	}
	for id := range implementations {
		if !ids[id] {
			t.Errorf("implementation %q names no scenario", id)
		}
	}
}

func TestConformance(t *testing.T) {
	scenarios := loadScenarios(t)
	for _, kind := range []string{"service", "scripted", "fence"} {
		for _, s := range scenarios {
			if s.Against != kind {
				continue
			}
			s := s
			t.Run(s.ID, func(t *testing.T) {
				impl := implementations[s.ID]
				if impl == nil {
					t.Fatalf("conformance scenario %q has no implementation in the Go suite", s.ID)
				}
				if s.Needs == "event-loop" {
					t.Skip("the Go client has no event loop: renewal runs on its own goroutine, and goroutines are preempted")
				}
				e := &env{t: t, key: "conf:" + shortID(s.ID)}
				if kind == "service" {
					e.cluster = theCluster(t)
					if s.Needs == "service-v2" && !e.cluster.v2 {
						t.Skip("needs the redesigned service (issue 29)")
					}
				}
				if kind == "fence" || s.Needs == "fence" {
					e.pg = thePostgres(t)
				}
				impl(e)
			})
		}
	}
}

func shortID(id string) string {
	if len(id) > 24 {
		id = id[:24]
	}
	return id + "-" + randomHex(4)
}
