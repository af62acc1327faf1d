package labels

// Operations are the disposal operations of Annex I (D1–D15) and the
// recovery operations of Annex II (R1–R13) of Directive 2008/98/EC, in the
// wording of the Directive (EN and DE language versions, the annexes' main
// text without their footnotes).
//
// Sources: English as published on EUR-Lex (CELEX 02008L0098, as amended);
// R1–R3 of the German version were checked against a republication of the
// Directive's text (the Austrian EDM code list, edm.gv.at), R4 is the
// wording the issue quotes; the German text of the consolidated Directive
// itself could not be read from EUR-Lex here (only its first page was
// reachable), so the other German wordings follow the Directive's
// published German version as far as known and otherwise the
// Kreislaufwirtschaftsgesetz (Anlage 1 and 2), which transposes the
// annexes and is the German wording our code list ships
// (rules/wastecodes/data/eu_wfd_recovery_disposal_operations_de.csv).
var Operations = map[string]Text{
	"D1":  {"Deposit into or on to land (e.g. landfill, etc.)", "Ablagerungen in oder auf dem Boden (z. B. Deponien usw.)"},
	"D2":  {"Land treatment (e.g. biodegradation of liquid or sludgy discards in soils, etc.)", "Behandlung im Boden (z. B. biologischer Abbau von flüssigen oder schlammigen Abfällen im Erdreich usw.)"},
	"D3":  {"Deep injection (e.g. injection of pumpable discards into wells, salt domes or naturally occurring repositories, etc.)", "Verpressung (z. B. Verpressung pumpfähiger Abfälle in Bohrlöcher, Salzdome oder natürliche Hohlräume usw.)"},
	"D4":  {"Surface impoundment (e.g. placement of liquid or sludgy discards into pits, ponds or lagoons, etc.)", "Oberflächenaufbringung (z. B. Ableitung flüssiger oder schlammiger Abfälle in Gruben, Teiche oder Lagunen usw.)"},
	"D5":  {"Specially engineered landfill (e.g. placement into lined discrete cells which are capped and isolated from one another and the environment, etc.)", "Speziell angelegte Deponien (z. B. Ablagerung in abgedichteten, getrennten Räumen, die gegeneinander und gegen die Umwelt verschlossen und isoliert werden, usw.)"},
	"D6":  {"Release into a water body except seas/oceans", "Einleitung in ein Gewässer mit Ausnahme von Meeren/Ozeanen"},
	"D7":  {"Release to seas/oceans including sea-bed insertion", "Einleitung in Meere/Ozeane einschließlich Einbringung in den Meeresboden"},
	"D8":  {"Biological treatment not specified elsewhere in this Annex which results in final compounds or mixtures which are discarded by means of any of the operations numbered D 1 to D 12", "Biologische Behandlung, die nicht an anderer Stelle in diesem Anhang beschrieben ist und durch die Endverbindungen oder Gemische entstehen, die mit einem der unter D 1 bis D 12 aufgeführten Verfahren entsorgt werden"},
	"D9":  {"Physico-chemical treatment not specified elsewhere in this Annex which results in final compounds or mixtures which are discarded by means of any of the operations numbered D 1 to D 12 (e.g. evaporation, drying, calcination, etc.)", "Chemisch-physikalische Behandlung, die nicht an anderer Stelle in diesem Anhang beschrieben ist und durch die Endverbindungen oder Gemische entstehen, die mit einem der unter D 1 bis D 12 aufgeführten Verfahren entsorgt werden (z. B. Verdampfen, Trocknen, Kalzinieren usw.)"},
	"D10": {"Incineration on land", "Verbrennung an Land"},
	"D11": {"Incineration at sea", "Verbrennung auf See"},
	"D12": {"Permanent storage (e.g. emplacement of containers in a mine, etc.)", "Dauerlagerung (z. B. Lagerung von Behältern in einem Bergwerk usw.)"},
	"D13": {"Blending or mixing prior to submission to any of the operations numbered D 1 to D 12", "Vermengung oder Vermischung vor Anwendung eines der unter D 1 bis D 12 aufgeführten Verfahren"},
	"D14": {"Repackaging prior to submission to any of the operations numbered D 1 to D 13", "Neuverpacken vor Anwendung eines der unter D 1 bis D 13 aufgeführten Verfahren"},
	"D15": {"Storage pending any of the operations numbered D 1 to D 14 (excluding temporary storage, pending collection, on the site where the waste is produced)", "Lagerung bis zur Anwendung eines der unter D 1 bis D 14 aufgeführten Verfahren (ausgenommen zeitweilige Lagerung — bis zur Sammlung — auf dem Gelände der Entstehung der Abfälle)"},
	"R1":  {"Use principally as a fuel or other means to generate energy", "Hauptverwendung als Brennstoff oder als anderes Mittel der Energieerzeugung"},
	"R2":  {"Solvent reclamation/regeneration", "Rückgewinnung/Regenerierung von Lösemitteln"},
	"R3":  {"Recycling/reclamation of organic substances which are not used as solvents (including composting and other biological transformation processes)", "Recycling/Rückgewinnung organischer Stoffe, die nicht als Lösemittel verwendet werden (einschließlich der Kompostierung und sonstiger biologischer Umwandlungsverfahren)"},
	"R4":  {"Recycling/reclamation of metals and metal compounds", "Recycling/Rückgewinnung von Metallen und Metallverbindungen"},
	"R5":  {"Recycling/reclamation of other inorganic materials", "Recycling/Rückgewinnung von anderen anorganischen Stoffen"},
	"R6":  {"Regeneration of acids or bases", "Regenerierung von Säuren und Basen"},
	"R7":  {"Recovery of components used for pollution abatement", "Wiedergewinnung von Bestandteilen, die der Bekämpfung von Verunreinigungen dienen"},
	"R8":  {"Recovery of components from catalysts", "Wiedergewinnung von Katalysatorenbestandteilen"},
	"R9":  {"Oil re-refining or other reuses of oil", "Erneute Ölraffination oder andere Wiederverwendungen von Öl"},
	"R10": {"Land treatment resulting in benefit to agriculture or ecological improvement", "Aufbringung auf den Boden zum Nutzen der Landwirtschaft oder der Ökologie"},
	"R11": {"Use of wastes obtained from any of the operations numbered R 1 to R 10", "Verwendung von Abfällen, die bei einem der unter R 1 bis R 10 aufgeführten Verfahren gewonnen werden"},
	"R12": {"Exchange of wastes for submission to any of the operations numbered R 1 to R 11", "Austausch von Abfällen, um sie einem der unter R 1 bis R 11 aufgeführten Verfahren zu unterziehen"},
	"R13": {"Storage of wastes pending any of the operations numbered R 1 to R 12 (excluding temporary storage, pending collection, on the site where the waste is produced)", "Lagerung von Abfällen bis zur Anwendung eines der unter R 1 bis R 12 aufgeführten Verfahren (ausgenommen zeitweilige Lagerung — bis zur Sammlung — auf dem Gelände der Entstehung der Abfälle)"},
}
