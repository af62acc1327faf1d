-- A reader's address is personal data: since issue 44.8 a use of an
-- inspection link keeps the reader's network only (IPv4 without its last
-- octet, 203.0.113.0/24; IPv6 without its last 80 bits, 2001:db8:1::/48).
-- The uses stored whole before are shortened alike: an IPv4 address here;
-- anything else not yet shortened (IPv6, which SQL cannot shorten on both
-- databases without failing on a malformed row) is cleared.
UPDATE inspection_uses SET client_address = RTRIM(client_address, '0123456789') || '0/24'
    WHERE client_address LIKE '%.%.%.%' AND client_address NOT LIKE '%:%' AND client_address NOT LIKE '%/%';
UPDATE inspection_uses SET client_address = ''
    WHERE client_address <> '' AND client_address NOT LIKE '%/%';
