module github.com/reprobench/reprobench

go 1.26
