-- Parties as the official forms name them (issue 45.1): Annex IA, IB and
-- VII ask for each party's registration number, name, address, contact
-- person, telephone and e-mail; DIWASS registers operators by their EORI
-- and VAT identifiers. The country of the address is the organisation's
-- country. Rows from before keep empty values until `admin apply` fills
-- them.
ALTER TABLE organisations ADD COLUMN registration_number TEXT NOT NULL DEFAULT '';
ALTER TABLE organisations ADD COLUMN street TEXT NOT NULL DEFAULT '';
ALTER TABLE organisations ADD COLUMN postal_code TEXT NOT NULL DEFAULT '';
ALTER TABLE organisations ADD COLUMN city TEXT NOT NULL DEFAULT '';
ALTER TABLE organisations ADD COLUMN contact_person TEXT NOT NULL DEFAULT '';
ALTER TABLE organisations ADD COLUMN telephone TEXT NOT NULL DEFAULT '';
ALTER TABLE organisations ADD COLUMN email TEXT NOT NULL DEFAULT '';
ALTER TABLE organisations ADD COLUMN eori TEXT NOT NULL DEFAULT '';
ALTER TABLE organisations ADD COLUMN vat TEXT NOT NULL DEFAULT '';
