package tests

import (
	"context"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	grpcstatus "google.golang.org/grpc/status"

	"github.com/wasteflow/wasteflow/configs"
	"github.com/wasteflow/wasteflow/models/dbtest"
	core "github.com/wasteflow/wasteflow/proto/gen/go/svc/core/v1/api"
	types "github.com/wasteflow/wasteflow/proto/gen/go/wasteflow/types/v1"
)

// The operations section 8 gives no REST route, over gRPC with the
// generated client: an inbox entry taken into the store (once), filed in
// a new file, files opened, merged, shared and found, a shared document
// exported by the grantee, a document sent to a named organisation and
// delivered again to the parties it names, and each transfer followed.
func TestSection8OperationsOverGRPC(t *testing.T) {
	parallel(t)
	dbtest.Each(t, func(t *testing.T, dbcfg configs.Database) {
		d := startDocs(t, dbcfg)
		conn := dialGRPC(t, d.url)
		docs, query := core.NewDocumentApiClient(conn), core.NewQueryApiClient(conn)
		as := func(user string) context.Context {
			return metadata.AppendToOutgoingContext(context.Background(), "provider_id", "dev-1", "authorization", "Bearer "+d.token(t, user))
		}

		// alice's note, stored without distribution.
		_, tm, _ := d.getAs(t, "alice", "/svc.core.v1.api.DocumentTemplateApi/ExportTransportTemplate?templateId.id=tpl-acme")
		_, x := d.bmuAs(t, "alice", "CreateDocumentFromTemplate", map[string]any{"templateXml": b64(t, tm["document"])})
		_, x = d.bmuAs(t, "alice", "UpdateDocument", map[string]any{"docXml": x, "document": completeNote()})
		imp := d.okAs(t, "alice", docAPI+"ImportTransportDocument", map[string]any{"document": x, "distribute": map[string]any{"value": false}})
		aliceDoc, number := imp["docId"].(map[string]any)["id"].(string), imp["number"].(string)
		if len(d.inbox(t, "tom", nil)) != 0 {
			t.Fatal("delivered without distribution")
		}

		// DeliverDocument: to the parties its official numbers name, as one transfer.
		del, err := docs.DeliverDocument(as("alice"), &core.DeliverDocumentRequest{DocId: &types.DocID{Id: aliceDoc}})
		if err != nil || del.GetTransfer().GetKind() != "DELIVERY" || len(del.GetTransfer().GetRecipients()) != 2 || del.GetTransfer().GetNumber() != number {
			t.Fatalf("deliver: %v %v", err, del)
		}
		in := d.inbox(t, "tom", nil)
		if len(in) != 1 || in[0]["kind"] != "DELIVERY" {
			t.Fatalf("tom's inbox: %v", in)
		}
		tomEntry := in[0]["id"].(string)

		// tom takes it into his store, once.
		took, err := docs.ImportTransportDocumentFromInbox(as("tom"), &core.ImportTransportDocumentFromInboxRequest{InboxEntryId: tomEntry})
		if err != nil || took.GetVersion() != 1 || took.GetNumber() != number || took.GetInboxEntryId() != tomEntry || len(took.GetDeliveredTo()) != 0 {
			t.Fatalf("take: %v %v", err, took)
		}
		_, err = docs.ImportTransportDocumentFromInbox(as("tom"), &core.ImportTransportDocumentFromInboxRequest{InboxEntryId: tomEntry})
		if st := grpcstatus.Convert(err); st.Code() != codes.AlreadyExists || !strings.Contains(st.Message(), took.GetDocId().GetId()) {
			t.Fatalf("second take: %v", err)
		}
		if in = d.inbox(t, "tom", nil); in[0]["read"] != true {
			t.Fatalf("a taken entry is read: %v", in)
		}
		_, err = docs.ImportTransportDocumentFromInbox(as("dora"), &core.ImportTransportDocumentFromInboxRequest{InboxEntryId: tomEntry})
		if grpcstatus.Code(err) != codes.NotFound {
			t.Fatalf("another's entry: %v", err)
		}
		det, err := docs.GetTransferDetails(as("alice"), &core.GetTransferDetailsRequest{TransferId: del.GetTransfer().GetTransferId()})
		if err != nil || len(det.GetTransfer().GetRecipients()) != 2 {
			t.Fatalf("transfer: %v %v", err, det)
		}
		for _, r := range det.GetTransfer().GetRecipients() {
			if r.GetOrganisationId() == "truck" != r.GetTaken() || r.GetOrganisationId() == "truck" != r.GetRead() {
				t.Errorf("recipient %v", r)
			}
		}
		if det, err := docs.GetTransferDetails(as("dora"), &core.GetTransferDetailsRequest{TransferId: del.GetTransfer().GetTransferId()}); err != nil ||
			len(det.GetTransfer().GetRecipients()) != 1 || det.GetTransfer().GetRecipients()[0].GetOrganisationId() != "dump" {
			t.Fatalf("a recipient sees its own entry: %v %v", err, det)
		}
		if _, err := docs.GetTransferDetails(as("rita"), &core.GetTransferDetailsRequest{TransferId: del.GetTransfer().GetTransferId()}); grpcstatus.Code(err) != codes.NotFound {
			t.Fatalf("a stranger: %v", err)
		}

		// dora files her entry: taken into her store and into a new file.
		doraEntry := d.inbox(t, "dora", nil)[0]["id"].(string)
		filed, err := docs.ImportDocumentToFileAreaFromInbox(as("dora"), &core.ImportDocumentToFileAreaFromInboxRequest{InboxEntryId: doraEntry})
		if err != nil || filed.GetFile().GetName() != number || filed.GetFile().GetReference() != "acme" || filed.GetFile().GetDocuments() != 1 || filed.GetFile().GetOwner() != "dump" {
			t.Fatalf("file from inbox: %v %v", err, filed)
		}
		doraDoc := filed.GetDocId().GetId()
		second, err := docs.CreateNewFile(as("dora"), &core.CreateNewFileRequest{Name: "Deponie Süd 2027", Reference: "contract 17", DocumentIds: []string{doraDoc}})
		if err != nil || second.GetFile().GetDocuments() != 1 {
			t.Fatalf("new file: %v %v", err, second)
		}
		_, err = docs.CreateNewFile(as("dora"), &core.CreateNewFileRequest{Name: "x", DocumentIds: []string{aliceDoc}})
		if st := grpcstatus.Convert(err); st.Code() != codes.InvalidArgument || !strings.Contains(st.Message(), "documentIds[0]") {
			t.Fatalf("another's document in a file: %v", err)
		}
		found, err := docs.FindFilesToDocument(as("dora"), &core.FindFilesToDocumentRequest{DocId: &types.DocID{Id: doraDoc}})
		if err != nil || len(found.GetFiles()) != 2 {
			t.Fatalf("find: %v %v", err, found)
		}
		merged, err := docs.MergeFiles(as("dora"), &core.MergeFilesRequest{FileId: filed.GetFile().GetFileId(), FileIds: []string{second.GetFile().GetFileId()}})
		if err != nil || merged.GetFile().GetDocuments() != 1 {
			t.Fatalf("merge: %v %v", err, merged)
		}
		files, err := query.ListFiles(as("dora"), &core.ListFilesRequest{})
		if err != nil || files.GetTotal() != 1 || files.GetEntries()[0].GetFileId() != filed.GetFile().GetFileId() {
			t.Fatalf("files after the merge: %v %v", err, files)
		}

		// Shared with acme: acme lists it and exports the document.
		if files, _ := query.ListFiles(as("alice"), &core.ListFilesRequest{}); files.GetTotal() != 0 {
			t.Fatalf("acme sees a file before the grant: %v", files)
		}
		if _, err := docs.GrantAccessToFile(as("alice"), &core.GrantAccessToFileRequest{FileId: filed.GetFile().GetFileId(), OrganisationId: "acme"}); grpcstatus.Code(err) != codes.NotFound {
			t.Fatalf("a grant by a non-owner: %v", err)
		}
		if _, err := docs.GrantAccessToFile(as("dora"), &core.GrantAccessToFileRequest{FileId: filed.GetFile().GetFileId(), OrganisationId: "acme"}); err != nil {
			t.Fatal(err)
		}
		files, err = query.ListFiles(as("alice"), &core.ListFilesRequest{})
		if err != nil || files.GetTotal() != 1 || files.GetEntries()[0].GetOwner() != "dump" {
			t.Fatalf("acme's files: %v %v", err, files)
		}
		fd, err := query.ListFileAreaDocuments(as("alice"), &core.ListFileAreaDocumentsRequest{FileId: filed.GetFile().GetFileId()})
		if err != nil || fd.GetTotal() != 1 || fd.GetEntries()[0].GetDoc().GetNumber() != number {
			t.Fatalf("the file's documents: %v %v", err, fd)
		}
		st, em, raw := d.getAs(t, "alice", docAPI+"ExportCurrentDocument?docId.id="+doraDoc)
		if st != 200 || string(b64(t, em["document"])) != string(x) {
			t.Fatalf("a shared document's export: %d %.200s", st, raw)
		}
		if st, _, _ := d.getAs(t, "tom", docAPI+"ExportCurrentDocument?docId.id="+doraDoc); st != 404 {
			t.Fatalf("an unshared document's export: %d", st)
		}

		// SendDocument to an organisation alice names.
		sent, err := docs.SendDocument(as("alice"), &core.SendDocumentRequest{DocId: &types.DocID{Id: aliceDoc}, Recipients: []string{"recyc"}, Message: "for your records"})
		if err != nil || sent.GetTransfer().GetKind() != "SENDING" || sent.GetTransfer().GetMessage() != "for your records" {
			t.Fatalf("send: %v %v", err, sent)
		}
		if in := d.inbox(t, "rita", nil); len(in) != 1 || in[0]["kind"] != "SENDING" || in[0]["sender"] != "acme" {
			t.Fatalf("recyc's inbox: %v", in)
		}
		_, err = docs.SendDocument(as("alice"), &core.SendDocumentRequest{DocId: &types.DocID{Id: aliceDoc}, Recipients: []string{"nobody"}})
		if st := grpcstatus.Convert(err); st.Code() != codes.InvalidArgument || !strings.Contains(st.Message(), "recipients[0]") {
			t.Fatalf("an unknown recipient: %v", err)
		}
		_, err = docs.SendDocument(as("tom"), &core.SendDocumentRequest{DocId: &types.DocID{Id: aliceDoc}, Recipients: []string{"recyc"}})
		if grpcstatus.Code(err) != codes.NotFound {
			t.Fatalf("another's document: %v", err)
		}
		// REST cannot reach any of them.
		for _, m := range []string{"SendDocument", "DeliverDocument", "GetTransferDetails", "CreateNewFile", "GrantAccessToFile", "MergeFiles",
			"FindFilesToDocument", "ImportTransportDocumentFromInbox", "ImportDocumentToFileAreaFromInbox"} {
			st, _, raw := d.do(t, call{path: docAPI + m, headers: hdr("dev-1", d.token(t, "alice")), body: []byte("{}"), rest: true})
			wantError(t, 404, 5, st, raw)
		}
	})
}
