package models

import "golang.org/x/sys/unix"

// userTimeout makes a connection fail when data it sent stays
// unacknowledged for ms milliseconds (TCP_USER_TIMEOUT): a database behind a
// network that swallows packets is given up in seconds, not in the
// kernel's quarter of an hour of retransmissions.
func userTimeout(fd uintptr, ms int) error {
	return unix.SetsockoptInt(int(fd), unix.IPPROTO_TCP, unix.TCP_USER_TIMEOUT, ms)
}
