module github.com/zkfence/zkfence/clients/go/conformance

go 1.19

require (
	github.com/lib/pq v1.10.7
	github.com/zkfence/zkfence/clients/go v0.0.0
)

// The client under test is this repository's; lib/pq (for the tests and the quickstart only) is
// Debian's golang-github-lib-pq-dev: no module proxy is needed (GOPROXY=off).
replace (
	github.com/lib/pq => /usr/share/gocode/src/github.com/lib/pq
	github.com/zkfence/zkfence/clients/go => ../
)
