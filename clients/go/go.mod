module github.com/zkfence/zkfence/clients/go

go 1.19
