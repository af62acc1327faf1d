package models

// SequenceLock is the sequencer's advisory lock key, for the tests of what
// waits for it.
var SequenceLock = sequenceLock

// NewFIFOPool and TxSlots, for the test of the transactions' line.
var NewFIFOPool, TxSlots = newFIFOPool, txSlots

// Line is p's line (TransactionLine of a pool the test made).
func (p *fifoPool) Line() Line { return p.line() }
