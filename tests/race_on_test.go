//go:build race

package tests

// raceDetector is on: long sequential walks (the intent matrix) are left
// to `make test`'s run without it, where they take a tenth of the time.
const raceDetector = true
