package models

// SequenceLock is the sequencer's advisory lock key, for the tests of what
// waits for it.
var SequenceLock = sequenceLock

// NewFIFOPool and TxSlots, for the test of the transactions' line.
var NewFIFOPool, TxSlots = newFIFOPool, txSlots

// Waits is how many transactions waited in line on p.
func (p *fifoPool) Waits() int64 { return p.waits.Load() }
