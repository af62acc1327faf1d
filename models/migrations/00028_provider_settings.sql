-- A provider's settings (issue 46.6): the rules' values a provider may set
-- where the law leaves room or may change, as JSON ({"name": "value"}).
-- Names, defaults and ranges are declared in rules.ProviderSettings;
-- `admin apply` writes them. Empty: every rule at its legal default.
ALTER TABLE providers ADD COLUMN settings TEXT NOT NULL DEFAULT '{}';
