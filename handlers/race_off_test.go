//go:build !race

package handlers_test

const raceDetector = false
