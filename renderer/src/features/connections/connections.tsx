// Connections: the configured connectors with their health, and a form generated from a kind's
// settings in the catalogue (docs/connectors.md). A connection can be tested before it is
// saved; a secret is typed in (sent once as {value}, stored by the service in a 0600 file),
// or named as a file or an environment variable. The list never holds a secret, only its
// reference. A 400 is shown beside the field the server names; a 409 means a file manages
// the connectors, and the forms are disabled.
import { useMe } from '../people/index.js';
import { useEffect, useRef, useState, type ReactNode } from 'react';
import { type Connector } from './api.js';
import { ErrorNote } from '../../shared/parts.js';
import { ConnectionForm } from './connection-form.js';
import { ConnectionsTable } from './connections-table.js';
import { useConnectorCatalogue, useConnectorList } from './queries.js';
import './connections.css';

type Editor = { mode: 'closed' } | { mode: 'add' } | { mode: 'edit'; connector: Connector };

export function ConnectionsPage() {
  const me = useMe();
  const catalogue = useConnectorCatalogue();
  const list = useConnectorList();
  const [editor, setEditor] = useState<Editor>({ mode: 'closed' });
  const [managed, setManaged] = useState<string | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  // When the form closes, the keyboard goes back to the button that opens it.
  const addRef = useRef<HTMLButtonElement>(null);
  const returnFocus = useRef(false);
  useEffect(() => {
    if (editor.mode !== 'closed' || !returnFocus.current) return;
    returnFocus.current = false;
    addRef.current?.focus();
  }, [editor]);

  const role = me.data?.role;
  const isAdmin = role === 'admin' || role === 'owner';
  const file = list.data?.file ?? null;
  const managedWhy =
    file !== null ? `connectors are managed in ${file}` : managed !== null ? managed : null;
  const canEdit = isAdmin && managedWhy === null;

  let banner: ReactNode = null;
  if (managedWhy !== null)
    banner = (
      <p className="banner managed" role="alert">
        A file manages the connectors ({managedWhy}): edit that file and restart the service.
        Adding, changing and deleting connections here is disabled.
      </p>
    );
  else if (me.data !== undefined && !isAdmin)
    banner = (
      <p className="banner" role="note">
        Only an admin can change connections.
      </p>
    );

  return (
    <main className="page connections-page">
      <h1>
        Connections {list.data && <span className="count">{list.data.connectors.length}</span>}
      </h1>
      <p className="hint">
        The tools the service reads from and acts through. Each is checked when it is saved and when
        the service starts; the mode turns <strong>operating</strong> once one answers.
      </p>
      {banner}
      <ErrorNote error={list.error ?? catalogue.error} />
      {list.data && (
        <ConnectionsTable
          connectors={list.data.connectors}
          canEdit={canEdit}
          onEdit={(connector) => {
            setSaved(null);
            setEditor({ mode: 'edit', connector });
          }}
          onManaged={setManaged}
        />
      )}
      {saved !== null && (
        <p className="ok" role="status">
          ✓ Saved {saved}; its health check runs now.
        </p>
      )}
      {editor.mode === 'closed' ? (
        <button
          ref={addRef}
          type="button"
          className="add-connection"
          disabled={!canEdit || catalogue.data === undefined}
          onClick={() => {
            setSaved(null);
            setEditor({ mode: 'add' });
          }}
        >
          Add a connection
        </button>
      ) : (
        catalogue.data && (
          <ConnectionForm
            key={editor.mode === 'edit' ? `edit-${editor.connector.name}` : 'add'}
            kinds={catalogue.data.kinds}
            framework={catalogue.data.framework}
            editing={editor.mode === 'edit' ? editor.connector : undefined}
            disabled={!canEdit}
            onManaged={setManaged}
            onDone={(c) => {
              returnFocus.current = true;
              setSaved(c.name);
              setEditor({ mode: 'closed' });
            }}
            onCancel={() => {
              returnFocus.current = true;
              setEditor({ mode: 'closed' });
            }}
          />
        )
      )}
    </main>
  );
}
