package conformance

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	_ "github.com/lib/pq"
)

const (
	appKey   = "app-key-0123456789abcdef"
	otherKey = "other-key-0123456789abcdef"
	opsKey   = "ops-key-0123456789abcdef"
)

var (
	repo      = func() string { d, _ := filepath.Abs("../../.."); return d }()
	patience  = 30 * time.Second
	jvm       = []string{"-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xmx256m"}
	listening = regexp.MustCompile(`zkfence-server: listening \(HTTP\) on [^ ]*:(\d+),`)
)

// awaitTrue polls cond until it holds (Awaitility's loop, not a sleep), or fails the test.
func awaitTrue(t testing.TB, what string, cond func() bool, timeout ...time.Duration) {
	t.Helper()
	limit := patience
	if len(timeout) > 0 {
		limit = timeout[0]
	}
	end := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(end) {
			t.Fatalf("not true within %s: %s", limit, what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func freePort() int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// start runs argv with its output appended to log; the child dies with this process (setpriv).
func start(argv []string, log string, runAs ...string) *exec.Cmd {
	out, err := os.OpenFile(log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		panic(err)
	}
	args := append(append([]string{}, runAs...), append([]string{"--pdeathsig", "KILL", "--"}, argv...)...)
	cmd := exec.Command("setpriv", args...)
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		panic(err)
	}
	go func() { _ = cmd.Wait(); out.Close() }()
	return cmd
}

func alive(cmd *exec.Cmd) bool { return cmd != nil && cmd.Process.Signal(syscall.Signal(0)) == nil }

// replica is one zkfence-server JVM.
type replica struct {
	c      *cluster
	name   string
	cmd    *exec.Cmd
	port   int
	starts int
	log    string
	exited chan struct{}
}

func (r *replica) url() string { return fmt.Sprintf("http://127.0.0.1:%d", r.port) }

func (r *replica) start() {
	r.starts++
	r.log = filepath.Join(r.c.dir, fmt.Sprintf("replica-%s-%d.log", r.name, r.starts))
	argv := append(append([]string{r.c.java}, jvm...), "-cp", r.c.classpath, "io.zkfence.server.ServerCommand",
		"--zookeeper", r.c.zookeeper, "--port", "0", "--api-keys", r.c.keys, "--warm-up-cycles", "0",
		// The suites' ZooKeeper is one standalone server: no follower to fall behind a leader.
		"--zookeeper-lag-bound-ms", "0")
	r.cmd = start(argv, r.log)
}

func (r *replica) awaitListening(t testing.TB) {
	awaitTrue(t, "replica "+r.name+" listening", func() bool {
		data, _ := os.ReadFile(r.log)
		m := listening.FindAllSubmatch(data, -1)
		if len(m) == 0 {
			return false
		}
		r.port, _ = strconv.Atoi(string(m[len(m)-1][1]))
		return true
	}, 120*time.Second)
}

func (r *replica) signal(s syscall.Signal) { _ = r.cmd.Process.Signal(s) }

func (r *replica) pause()  { r.signal(syscall.SIGSTOP) }
func (r *replica) resume() { r.signal(syscall.SIGCONT) }

// kill is SIGKILL, waiting until the process is gone.
func (r *replica) kill(t testing.TB) {
	r.resume()
	r.signal(syscall.SIGKILL)
	awaitTrue(t, "replica "+r.name+" gone", func() bool { return !alive(r.cmd) })
}

// terminate is SIGTERM, as Kubernetes stops a pod.
func (r *replica) terminate(t testing.TB) {
	r.signal(syscall.SIGTERM)
	awaitTrue(t, "replica "+r.name+" stopped", func() bool { return !alive(r.cmd) }, 60*time.Second)
}

// cluster is a ZooKeeper server and replicas A and B, JVMs of the server module's class path.
type cluster struct {
	dir, java, classpath, keys, zookeeper string
	zk                                    *exec.Cmd
	a, b                                  *replica
	v2                                    bool
}

func startCluster(t testing.TB) *cluster {
	dir, _ := os.MkdirTemp("", "zkfence-go-clients-")
	out, err := exec.Command(filepath.Join(repo, "clients", "testing", "server-classpath")).Output()
	if err != nil {
		t.Fatalf("clients/testing/server-classpath: %v", err)
	}
	lines := strings.Split(string(out), "\n")
	c := &cluster{dir: dir, java: lines[0], classpath: lines[1], keys: filepath.Join(dir, "keys.json")}
	keys := `{"keys":[{"name":"app","key":"` + appKey + `","namespaces":["conf","inventory-service"]},` +
		`{"name":"other","key":"` + otherKey + `","namespaces":["elsewhere"]},{"name":"ops","key":"` + opsKey + `","admin":true}]}`
	_ = os.WriteFile(c.keys, []byte(keys), 0o600)
	zkPort := freePort()
	c.zookeeper = fmt.Sprintf("127.0.0.1:%d", zkPort)
	c.zk = start(append(append([]string{c.java}, jvm...), "-Dzookeeper.admin.enableServer=false",
		"-Dzookeeper.4lw.commands.whitelist=ruok", "-cp", c.classpath, "org.apache.zookeeper.server.ZooKeeperServerMain",
		strconv.Itoa(zkPort), filepath.Join(dir, "zk-data")), filepath.Join(dir, "zookeeper.log"))
	awaitTrue(t, "ZooKeeper serving", func() bool {
		conn, err := net.DialTimeout("tcp", c.zookeeper, time.Second)
		if err != nil {
			return false
		}
		defer conn.Close()
		_, _ = conn.Write([]byte("ruok"))
		buf := make([]byte, 4)
		n, _ := io.ReadFull(conn, buf)
		return n == 4 && string(buf) == "imok"
	}, 120*time.Second)
	c.a, c.b = &replica{c: c, name: "A"}, &replica{c: c, name: "B"}
	c.a.start()
	c.b.start()
	c.a.awaitListening(t)
	c.b.awaitListening(t)
	status, grant := c.http("POST", "conf:probe-go", "/acquire", map[string]any{"ownerId": "probe", "ttlMillis": 1000}, appKey, c.b)
	if status != 200 {
		t.Fatalf("probe acquire: %d %v", status, grant)
	}
	_, c.v2 = grant["validForMillis"]
	c.http("POST", "conf:probe-go", "/release", map[string]any{"ownerId": "probe", "lockToken": grant["lockToken"]}, appKey, c.b)
	return c
}

// ensureRunning resumes a paused replica and starts a stopped one again (on a new port).
func (c *cluster) ensureRunning(t testing.TB) {
	for _, r := range []*replica{c.a, c.b} {
		if alive(r.cmd) {
			r.resume()
		} else {
			r.start()
			r.awaitListening(t)
		}
	}
}

func (c *cluster) stop() {
	for _, cmd := range []*exec.Cmd{c.a.cmd, c.b.cmd, c.zk} {
		if alive(cmd) {
			_ = cmd.Process.Signal(syscall.SIGCONT)
			_ = cmd.Process.Kill()
		}
	}
	time.Sleep(200 * time.Millisecond) // the JVMs' files close before the folder goes
	_ = os.RemoveAll(c.dir)
}

// http is a raw call beside the client (status, force-release).
func (c *cluster) http(method, key, suffix string, body map[string]any, apiKey string, r *replica) (int, map[string]any) {
	var reader io.Reader
	if body != nil {
		data, _ := json.Marshal(body)
		reader = bytes.NewReader(data)
	}
	req, _ := http.NewRequest(method, r.url()+"/v1/locks/"+url.PathEscape(key)+suffix, reader)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+apiKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, map[string]any{"error": err.Error()}
	}
	defer resp.Body.Close()
	var out map[string]any
	dec := json.NewDecoder(resp.Body)
	dec.UseNumber()
	_ = dec.Decode(&out)
	return resp.StatusCode, out
}

func (c *cluster) status(key string) map[string]any {
	_, s := c.http("GET", key, "", nil, appKey, c.b)
	return s
}

func (c *cluster) waiters(key string) []string {
	var out []string
	ws, _ := c.status(key)["waiters"].([]any)
	for _, w := range ws {
		if m, ok := w.(map[string]any); ok {
			id, _ := m["ownerId"].(string)
			out = append(out, id)
		}
	}
	return out
}

func (c *cluster) expiresAt(key string) int64 {
	n, _ := c.status(key)["expiresAt"].(json.Number)
	v, _ := n.Int64()
	return v
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// postgres is a PostgreSQL server from Debian's packages in a temporary folder, as user postgres.
type postgres struct {
	dir  string
	port int
	cmd  *exec.Cmd
	db   *sql.DB
}

func startPostgres(t testing.TB) *postgres {
	matches, _ := filepath.Glob("/usr/lib/postgresql/*/bin/postgres")
	if len(matches) == 0 {
		t.Fatal("no PostgreSQL server found (install Debian's 'postgresql' package, as .ci/run does)")
	}
	sort.Strings(matches)
	bin := filepath.Dir(matches[len(matches)-1])
	dir, _ := os.MkdirTemp("", "zkfence-go-pg-")
	var runAs []string
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			t.Fatal("the tests run as root and there is no 'postgres' user to run PostgreSQL as")
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		_ = os.Chown(dir, uid, gid)
		runAs = []string{"--reuid=postgres", "--regid=postgres", "--init-groups"}
	}
	initdb := append(append([]string{}, runAs...), "--", filepath.Join(bin, "initdb"), "-D", filepath.Join(dir, "data"),
		"-U", "zkfence", "--auth=trust", "-E", "UTF8", "--no-sync", "--no-instructions")
	cmd := exec.Command("setpriv", initdb...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("initdb: %v: %s", err, out)
	}
	p := &postgres{dir: dir, port: freePort()}
	p.cmd = start([]string{filepath.Join(bin, "postgres"), "-D", filepath.Join(dir, "data"), "-p", strconv.Itoa(p.port),
		"-k", dir, "-c", "listen_addresses=127.0.0.1", "-c", "fsync=off", "-c", "max_connections=40"},
		filepath.Join(dir, "postgres.log"), runAs...)
	p.db, _ = sql.Open("postgres", p.dsn())
	awaitTrue(t, "PostgreSQL accepting connections", func() bool { return p.db.Ping() == nil }, 60*time.Second)
	return p
}

func (p *postgres) dsn() string {
	return fmt.Sprintf("host=127.0.0.1 port=%d user=zkfence dbname=postgres sslmode=disable", p.port)
}

func (p *postgres) stop() {
	_ = p.db.Close()
	if alive(p.cmd) {
		_ = p.cmd.Process.Signal(syscall.SIGTERM)
		for i := 0; i < 100 && alive(p.cmd); i++ {
			time.Sleep(100 * time.Millisecond)
		}
	}
	_ = os.RemoveAll(p.dir)
}

// lossyProxy is clients/testing/lossy-proxy in front of one replica.
type lossyProxy struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	mu    sync.Mutex
	lines []string
	url   string
}

func startProxy(t testing.TB, upstream string) *lossyProxy {
	p := &lossyProxy{}
	p.cmd = exec.Command("python3", filepath.Join(repo, "clients", "testing", "lossy-proxy"), strings.TrimPrefix(upstream, "http://"))
	p.stdin, _ = p.cmd.StdinPipe()
	out, _ := p.cmd.StdoutPipe()
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		s := bufio.NewScanner(out)
		for s.Scan() {
			p.mu.Lock()
			p.lines = append(p.lines, strings.TrimSpace(s.Text()))
			p.mu.Unlock()
		}
	}()
	awaitTrue(t, "the proxy listening", func() bool {
		p.mu.Lock()
		defer p.mu.Unlock()
		for _, l := range p.lines {
			if strings.HasPrefix(l, "listening ") {
				p.url = "http://127.0.0.1:" + strings.TrimPrefix(l, "listening ")
				return true
			}
		}
		return false
	})
	t.Cleanup(func() { _ = p.stdin.Close(); _ = p.cmd.Wait() })
	return p
}

func (p *lossyProxy) said(line string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return contains(p.lines, line)
}

func (p *lossyProxy) drop(t testing.TB, kind string) {
	_, _ = io.WriteString(p.stdin, "drop "+kind+"\n")
	awaitTrue(t, "the proxy armed", func() bool { return p.said("armed " + kind) })
}

func (p *lossyProxy) await(t testing.TB, line string) {
	awaitTrue(t, "the proxy says "+line, func() bool { return p.said(line) }, 60*time.Second)
}

var background = context.Background()
