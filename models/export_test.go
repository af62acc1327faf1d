package models

// SequenceLock is the sequencer's advisory lock key, for the tests of what
// waits for it.
var SequenceLock = sequenceLock
