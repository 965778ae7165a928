package main

import (
	"bufio"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// servers finds the processes serving the API at base (the one listening on
// its port) and every `tracker worker` process of this machine: `tracker
// dev` (make run) is both in one process, `make stack` runs them apart.
// pids, when given, are used instead.
func servers(base string, pids []int) ([]int, error) {
	if len(pids) > 0 {
		return pids, nil
	}
	u, err := url.Parse(base)
	if err != nil {
		return nil, err
	}
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	p, err := strconv.Atoi(port)
	if err != nil {
		return nil, fmt.Errorf("port of %s: %w", base, err)
	}
	inodes := map[string]bool{}
	for _, f := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		listening(f, p, inodes)
	}
	procs, _ := filepath.Glob("/proc/[0-9]*")
	seen := map[int]bool{}
	var out []int
	for _, dir := range procs {
		pid, _ := strconv.Atoi(filepath.Base(dir))
		if isWorker(dir) || holds(dir, inodes) {
			if !seen[pid] {
				seen[pid] = true
				out = append(out, pid)
			}
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no process listens on port %d here (set BENCH_PIDS)", p)
	}
	return out, nil
}

// listening adds the inodes of the sockets in LISTEN state (0A) on port.
func listening(file string, port int, inodes map[string]bool) {
	f, err := os.Open(file)
	if err != nil {
		return
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) < 10 || fs[3] != "0A" {
			continue
		}
		i := strings.LastIndexByte(fs[1], ':')
		if p, err := strconv.ParseInt(fs[1][i+1:], 16, 32); err == nil && int(p) == port {
			inodes["socket:["+fs[9]+"]"] = true
		}
	}
}

func holds(dir string, inodes map[string]bool) bool {
	fds, _ := filepath.Glob(dir + "/fd/*")
	for _, fd := range fds {
		if l, err := os.Readlink(fd); err == nil && inodes[l] {
			return true
		}
	}
	return false
}

func isWorker(dir string) bool {
	b, err := os.ReadFile(dir + "/cmdline")
	if err != nil {
		return false
	}
	args := strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
	return len(args) >= 2 && filepath.Base(args[0]) == "tracker" && args[1] == "worker"
}

// status reads a kB figure (VmRSS, VmHWM) of /proc/<pid>/status, in bytes.
func status(pid int, key string) (int64, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), key+":"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10, err
		}
	}
	return 0, fmt.Errorf("no %s in /proc/%d/status", key, pid)
}

// name is a process's command line, for the report.
func name(pid int) string {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	return strings.TrimSpace(strings.ReplaceAll(string(b), "\x00", " "))
}
