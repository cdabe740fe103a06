// People and teams (docs/people.md). People (admin): the list with role, teams, disabled and
// last sign-in; add a person; change name, role, handles, disabled; delete after a
// confirmation. Teams (every role reads them): create, rename, members and leads (admin or a
// lead of the team), delete. Drafts live in the editors, so a refetch never replaces what is
// being typed; 403 names the role needed, 409 says why (the last owner, a name taken).
import { type ReactNode } from 'react';
import { PeopleTable } from './people-table.js';
import { AddPerson } from './person-forms.js';
import { useMe, useTeams, useUsers } from './queries.js';
import { Teams } from './teams.js';
import { roleAtLeast } from '../../shared/api.js';
import { Refusal } from '../../shared/http.js';
import { Link } from '../../shared/parts.js';
import './people.css';

export function PeoplePage() {
  const me = useMe();
  const role = me.data?.role;
  const isAdmin = roleAtLeast(role, 'admin');
  const users = useUsers(isAdmin);
  const teams = useTeams();
  const teamNames = new Map((teams.data?.teams ?? []).map((t) => [t.id, t.name]));
  let people: ReactNode;
  if (me.data === undefined) people = <p className="muted">Loading…</p>;
  else if (!isAdmin)
    people = (
      <p className="banner" role="note">
        Only an admin can list and change people; you are {role}.
      </p>
    );
  else
    people = (
      <>
        <AddPerson myRole={role} />
        <Refusal error={users.error} />
        {users.data && (
          <PeopleTable people={users.data.users} teamNames={teamNames} myRole={role} />
        )}
      </>
    );
  return (
    <main className="page people-page">
      <h1>People {users.data && <span className="count">{users.data.users.length}</span>}</h1>
      <p className="hint">
        Who may sign in, their role (viewer &lt; responder &lt; admin &lt; owner), the channels they
        are reached on and their teams. Who may sign in without being added is set under{' '}
        <Link to="/settings#access">Settings → Access</Link>.
      </p>
      {people}
      {me.data !== undefined && (
        <Teams
          isAdmin={isAdmin}
          myId={me.data.user_id ?? null}
          everyone={isAdmin ? users.data?.users : undefined}
        />
      )}
    </main>
  );
}
