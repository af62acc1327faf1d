#!/usr/bin/env bash
# A shipment walked through time from outside, with curl and jq, against a
# server in the development environment with the demo data (make run): a
# notification filed, acknowledged, consented by two authorities and,
# when the test clock passes the decision period, tacitly by the transit
# authority; a movement taken over on its date, received and completed;
# the documents found again in the lists and work queues. Nothing here
# reaches into the server: every step is an API call. The README shows it;
# cmd/wasteflow's TestClockWalkthroughScript runs it against the real
# binary, so it cannot rot.
#
#   WASTEFLOW_URL   the server (default http://127.0.0.1:8080)
set -euo pipefail
B=${WASTEFLOW_URL:-http://127.0.0.1:8080}
APP=demo-app-token-dev-1-0123456789abcdef
CO=svc.bxa.diwass.v1.api.CompanyDocumentApi
AU=svc.bxa.diwass.v1.api.AuthorityDocumentApi
CLOCK=svc.core.v1.api.TestClockApi

# login USER PASSWORD: an access token (refresh token, then access).
login() {
  local rt
  rt=$(curl -sf -X POST "$B/svc.core.v1.api.AuthApi/IssueRefreshToken" -H 'provider_id: dev-1' \
    -d "{\"usernameCredentials\":{\"username\":\"$1\",\"password\":\"$2\"},\"appToken\":\"$APP\"}" | jq -r .refreshToken)
  curl -sf -X POST "$B/svc.core.v1.api.AuthApi/RequestAccess" -H 'provider_id: dev-1' -H "Authorization: Bearer $rt" | jq -r .accessToken
}

# call TOKEN OPERATION BODY: the answer; stops on an error or a business error.
call() {
  local out
  out=$(curl -s -X POST "$B/$2" -H 'provider_id: dev-1' -H "Authorization: Bearer $1" -d "$3")
  if ! jq -e '(.code == null) and ((.businessErrors // []) | length == 0)' <<<"$out" >/dev/null; then
    echo "$2: $out" >&2
    return 1
  fi
  echo "$out"
}

# version TOKEN API ID: the document's version as the caller reads it; every
# act sends it, so an act on a copy someone changed meanwhile is refused (409).
version() {
  call "$1" "$2/GetDocument" "{\"documentId\": \"$3\"}" | jq -r '.document | (.notification // .annex7 // .movement).version'
}

ALICE=$(login alice alice-demo-password) # notifier (ACME); her app token carries usermgt: she moves the clock
NOOR=$(login noor noor-demo-password)    # authority of destination
BERND=$(login bernd bernd-demo-password) # authority of dispatch
TOM=$(login tom tom-demo-password)       # carrier
RITA=$(login rita rita-demo-password)    # consignee and facility

# The provider's clock: its today, and N days from it.
today=$(call "$ALICE" $CLOCK/GetTestClock '{}' | jq -r '.now[:10]')
day() { date -u -d "$today + $1 days" +%F; }
echo "clock: $today"

# 1. alice files a notification (create the draft, then submit it).
n=$(jq -n --arg first "$(day 1)" --arg last "$(day 200)" '{notification: {
  notifier: {organisationId: "acme"}, consignee: {organisationId: "recyc"}, facility: {organisationId: "recyc"},
  producers: [{organisationId: "acme"}], carriers: [{organisationId: "truck"}],
  competentAuthorities: {dispatch: {organisationId: "auth-de-by"}, destination: {organisationId: "auth-nl"},
                         transit: [{organisationId: "auth-be"}]},
  wasteClassifications: [{list: "EU_LIST_OF_WASTE", code: "16 02 13*"}], recoveryDisposalCodes: ["R4"],
  totalQuantity: {tonnes: {units: "60"}}, numberOfShipments: 3, packagingTypes: ["BULK"],
  shipmentPeriod: {firstDeparture: $first, lastDeparture: $last}}}')
id=$(call "$ALICE" $CO/CreateSubmission "$n" | jq -r .document.id)
call "$ALICE" $CO/SetSubmission "$(jq --arg id "$id" --arg v "$(version "$ALICE" $CO "$id")" '. + {documentId: $id, version: $v}' <<<"$n")" | jq -r '"filed: " + .document.number'

# 2. noor finds it in her work queue and acknowledges it; dispatch and destination consent.
call "$NOOR" $AU/ListDocuments '{"actionable": true, "qpar": {"filter": [{"path": "state", "op": "EQUAL", "operands": [{"s": "submitted"}]}]}}' |
  jq -r --arg id "$id" '.entries[] | select(.documentId == $id) | "noor may: " + ([.followUpIntents[].intent] | join(", ")) + "; due " + .nextDeadline.dueAt'
call "$NOOR" $AU/SubmitAcknowledgement "{\"documentId\": \"$id\", \"version\": \"$(version "$NOOR" $AU "$id")\"}" >/dev/null
call "$BERND" $AU/SetDecision "{\"documentId\": \"$id\", \"version\": \"$(version "$BERND" $AU "$id")\", \"decision\": {\"type\": \"CONSENT\"}}" >/dev/null
call "$NOOR" $AU/SetDecision "{\"documentId\": \"$id\", \"version\": \"$(version "$NOOR" $AU "$id")\", \"decision\": {\"type\": \"CONSENT\"}}" | jq -r '"after two consents: " + .document.state'

#    The financial guarantee (Art. 7), through SetByIntent: alice submits it, valid through the
#    shipment period; bernd, the authority of dispatch, approves it. Movements need it.
doc=$(call "$ALICE" $CO/GetNotification "{\"documentId\": \"$id\"}")
call "$ALICE" $CO/SetByIntent "$(jq '{intent: "GUARANTEE", document: {notification: (.document + {guarantee: {kind: "FINANCIAL_GUARANTEE",
  amount: {units: "250000"}, currency: "EUR", guarantor: "Bayerische Landesbank", reference: "BG-2026-0815",
  validFrom: .document.notification.shipmentPeriod.firstDeparture, validUntil: .document.notification.shipmentPeriod.lastDeparture}})}}' <<<"$doc")" >/dev/null
doc=$(call "$BERND" $AU/GetDocument "{\"documentId\": \"$id\"}")
call "$BERND" $AU/SetByIntent "$(jq '{intent: "GUARANTEE_APPROVAL", document: (.document | .notification.guaranteeApproval = {remarks: "approved"})}' <<<"$doc")" |
  jq -r '"guarantee approved by " + .document.notification.guarantees[-1].approvedBy'

# 3. The transit authority stays silent. Its decision period (30 days from the acknowledgement,
#    ending on a Belgian working day) is on the document; the day after it ends, it consented tacitly.
due=$(call "$ALICE" $CO/GetNotification "{\"documentId\": \"$id\"}" |
  jq -r '.document.deadlines[] | select(.rule == "DECISION_DUE" and .party == "auth-be") | .dueAt')
echo "auth-be decides by: $due"
call "$ALICE" $CLOCK/AdvanceTestClock "{\"to\": \"$(date -u -d "${due:0:10} + 1 day" +%F)T12:00:00Z\"}" | jq -c '{now, swept}'
call "$ALICE" $CO/GetNotification "{\"documentId\": \"$id\"}" | jq -r '"now: " + .document.state + ", may: " + ([.followUpIntents[].intent] | join(", "))'
today=$(call "$ALICE" $CLOCK/GetTestClock '{}' | jq -r '.now[:10]')

# 4. A movement a week ahead; the clock moves to its date; the carrier takes it over.
ship=$(day 7)
m=$(call "$ALICE" $CO/CreateMovementTemplate "$(jq -n --arg id "$id" --arg d "$ship" '{notificationId: $id, movementTemplate: {
  actualDateOfShipment: $d, actualQuantity: {tonnes: {units: "20"}}, packagingTypes: ["BULK"],
  carriers: [{organisationId: "truck", meansOfTransport: "ROAD"}]}}')" | jq -r .document.id)
call "$ALICE" $CLOCK/AdvanceTestClock "{\"to\": \"${ship}T08:00:00Z\"}" | jq -c '{now}'
call "$TOM" $CO/SetCarrierTransport "{\"documentId\": \"$m\", \"version\": \"$(version "$TOM" $CO "$m")\", \"carrierTransport\": {\"takenOverOn\": \"$ship\", \"vehicleId\": \"M-WF 2027\"}}" |
  jq -r '"movement: " + .document.state'

# 5. Two days later the consignee and the facility receive it, and the facility completes the recovery.
call "$ALICE" $CLOCK/AdvanceTestClock '{"days": 2}' >/dev/null
got=$(day 9)
call "$RITA" $CO/SetConsigneeReception "{\"documentId\": \"$m\", \"version\": \"$(version "$RITA" $CO "$m")\", \"consigneeReception\": {\"receivedOn\": \"$got\", \"quantity\": {\"tonnes\": {\"units\": \"20\"}}}}" >/dev/null
call "$RITA" $CO/SetFacilityReception "{\"documentId\": \"$m\", \"version\": \"$(version "$RITA" $CO "$m")\", \"facilityReception\": {\"receivedOn\": \"$got\", \"quantity\": {\"tonnes\": {\"units\": \"20\"}}}}" >/dev/null
call "$RITA" $CO/SetFacilityCompletion "{\"documentId\": \"$m\", \"version\": \"$(version "$RITA" $CO "$m")\", \"facilityCompletion\": {\"completedOn\": \"$got\", \"operationCode\": \"R4\"}}" |
  jq -r '"movement: " + .document.state'

# 6. Found again: alice's movements under the notification, and what is left of it.
call "$ALICE" $CO/ListDocuments "{\"qpar\": {\"filter\": [{\"path\": \"notification_id\", \"op\": \"EQUAL\", \"operands\": [{\"s\": \"$id\"}]}]}}" |
  jq -r '.entries[] | "listed: " + .number + " " + .state'
call "$ALICE" $CO/GetNotification "{\"documentId\": \"$id\"}" |
  jq -r '"shipments left: \(.document.movements.shipmentsLeft), tonnes left: \(.document.movements.quantityLeft.tonnes.units)"'
