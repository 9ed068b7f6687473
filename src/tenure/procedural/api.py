"""Rules: how things are done here (SPEC §2.4). `Tenure.rules_store`.

Candidate rules are mined from episodes (mining.py) or stated by people; each keeps its counts and
source episodes. One that passes the threshold is promoted into the always-loaded instructions (the
managed section of AGENTS.md, `tenure://rules`, the briefing); one that starts failing is demoted.
Every change is an event: `explain` shows why a rule says what it says, and since when.

```toml
[procedural]
promote_after = 3        # episodes counting for a rule before it is promoted …
min_agreement = 0.8      # … with at least this share of its evidence for it …
min_explained = 2        # … and at least this many failures of episodes that did not follow it
demote_after = 2         # episodes counting against a promoted rule (since its promotion) that demote it
agents_file = "AGENTS.md"
```
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from tenure.config import SHARE, load_settings
from tenure.episodic.api import Episodes
from tenure.files import RefusedWrite, project_path
from tenure.namespace.symbols import indexed_files
from tenure.procedural import agents_md, mining, sealed
from tenure.procedural.mining import Mined, rule_text
from tenure.procedural.procedures import Procedure, execute, procedures
from tenure.procedural.sealed import Keys
from tenure.procedural.store import migrations
from tenure.refusal import Refusal
from tenure.storage import Database, get_value, set_value
from tenure.team.organisation import NoOrganisation, require_organisation
from tenure.words import counted

Clock = Callable[[], datetime]
EVIDENCE = "tenure (evidence)"  # the author of what mining does
NO_ORG_KEY = ("no organisation key here (TENURE_ORG_KEY, or the organisation's key file from a teammate: "
              "see docs/team.md)")


class RulesError(Refusal):
    """A refused request; the message says what to do instead."""


@dataclass(frozen=True)
class ProceduralSettings:
    promote_after: int = 3
    min_agreement: float = field(default=0.8, metadata=SHARE)
    min_explained: int = 2
    demote_after: int = 2
    agents_file: str = "AGENTS.md"


class Rules:
    def __init__(self, db: Database, root: Path, episodes: Episodes, keys: Keys, clock: Clock | None = None,
                 code: Database | None = None) -> None:
        """`db`: the rules' own database (a team's, shared); `code`: the checkout's (its indexed files);
        `keys`: the ciphers of the scopes, which seal a person's words (sealed.py)."""
        self.db, self.code, self.root, self.episodes, self.keys = db, code or db, Path(root), episodes, keys
        self.clock = clock or (lambda: datetime.now(UTC))
        migrations.apply(db)
        self.settings = load_settings(self.root, "procedural", ProceduralSettings)
        self.team_database = self.code is not self.db  # as Memories.team_database: organisation rules reach others

    # learning ------------------------------------------------------------------------------------
    def mine(self) -> dict:
        """Count every rule's evidence again, add the new candidates, promote and demote; the managed
        section of AGENTS.md follows."""
        runs, decided = self.episodes.runs(), self.episodes.decided()
        known = self.db.query("SELECT * FROM rules WHERE kind != 'stated'")
        pairs = {kind: {(r["first"], r["second"]) for r in known if r["kind"] == kind} for kind in ("ordering",
                                                                                                  "co-change")}
        code = set(indexed_files(self.code))
        found = {m.key: m for m in mining.ordering(runs) + mining.co_change(decided, code)}
        read = mining.what_was_read(runs, decided, list(found.values()))
        found.update({m.key: m for m in mining.ordering(runs, pairs["ordering"]) +
                      mining.co_change(decided, code, pairs["co-change"])})
        changed: dict[str, list[int]] = {"new": [], "promoted": [], "demoted": []}
        with self.db.transaction():
            rows = {r["key"]: r for r in known}
            for key, rule in sorted(found.items()):
                row = rows.get(key)
                if row is None:
                    changed["new"].append(self._insert(rule))
                    row = self._row(changed["new"][-1])
                self._count(row, rule, changed)
            set_value(self.db, "procedural_meta", "mined", json.dumps({**read, "rules": len(found)}))
        written = self.write_agents_file() if changed["promoted"] or changed["demoted"] else None
        return {"candidatesNew": changed["new"], "promoted": changed["promoted"], "demoted": changed["demoted"],
                "rules": len(found), "agentsFile": written, "read": read}

    def _insert(self, rule: Mined) -> int:
        at = self.clock().isoformat()
        rule_id = self.db.rows(
            """INSERT INTO rules (kind, key, text, first, second, status, successes, failures, source, created_at,
               changed_at) VALUES (?, ?, ?, ?, ?, 'candidate', ?, ?, ?, ?, ?) RETURNING id""",
            (rule.kind, rule.key, rule.text, rule.first, rule.second, rule.successes, rule.failures,
             "mined (habit)" if rule.basis == mining.HABIT else "mined", at, at))[0][0]
        how = ("a habit of the history: no failure without it on record, so it stays a candidate until one is"
               if rule.basis == mining.HABIT else "failures without it, successes with it")
        self._event(rule_id, "mined", f"{rule.successes} for, {rule.failures} against ({how})", EVIDENCE)
        return rule_id

    def _count(self, row: dict, rule: Mined, changed: dict[str, list[int]]) -> None:
        s, f = rule.successes, rule.failures
        grouped: dict[tuple[int, str], list[str]] = {}
        for o in rule.evidence:
            grouped.setdefault((o.episode, o.counts_as), []).append(o.why)
        self.db.execute("DELETE FROM rule_evidence WHERE rule_id = ?", (row["id"],))
        cipher = self._key(row["scope"])
        self.db.executemany("INSERT INTO rule_evidence (rule_id, episode_id, counts_as, times, why, sealed)"
                            " VALUES (?, ?, ?, ?, '', ?)",
                            [(row["id"], e, c, len(w), cipher.encrypt(w[0], sealed.EVIDENCE))
                             for (e, c), w in sorted(grouped.items())])
        if (s, f) != (row["successes"], row["failures"]):
            self.db.execute("UPDATE rules SET successes = ?, failures = ? WHERE id = ?", (s, f, row["id"]))
            self._event(row["id"], "counted", f"{row['successes']} → {s} for, {row['failures']} → {f} against",
                        EVIDENCE)
        agreement = s / (s + f) if s + f else 0.0
        if row["status"] == "promoted":
            since = f - row["failures_at_change"]
            if since >= self.settings.demote_after or (s + f >= self.settings.promote_after and
                                                       agreement < self.settings.min_agreement):
                self._set_status(row["id"], "demoted", f"{since} episodes against it since it was promoted; "
                                 f"{s} for, {f} against ({agreement:.0%})", EVIDENCE, by_hand=False)
                changed["demoted"].append(row["id"])
        elif not row["by_hand"] and s - (row["successes_at_change"] if row["status"] == "demoted" else 0) >= \
                self.settings.promote_after and agreement >= self.settings.min_agreement and \
                rule.explained >= self.settings.min_explained:
            self._set_status(row["id"], "promoted", f"{s} episodes for it ({rule.explained} failed without it), {f} "
                             f"against ({agreement:.0%}): past the threshold ({self.settings.promote_after} for, "
                             f"{self.settings.min_agreement:.0%}, {self.settings.min_explained} failed without)",
                             EVIDENCE, by_hand=False)
            changed["promoted"].append(row["id"])

    # people --------------------------------------------------------------------------------------
    def add(self, text: str | None, author: str, before: str | None = None, then: str | None = None,
            change: str | None = None, also: str | None = None, candidate: bool = False,
            scope: str = "project") -> dict:
        """A rule a person states: in words, or as an ordering (`before` … `then`) or a co-change
        (`change` … `also`) that episodes then count. Promoted at once unless `candidate`. `scope`
        'org': a rule of every project of the organisation (stated in words only: episodes are a
        project's own)."""
        self._check_scope(scope, text, before or then or change or also)
        if before or then:
            if not (before and then):
                raise RulesError("an ordering rule names both commands: --before 'make generate' --then 'pytest'")
            kind, first, second = "ordering", before.strip(), then.strip()
        elif change or also:
            if not (change and also):
                raise RulesError("a co-change rule names both files: --change api/schema.py --also "
                                 "api/generated/client.py")
            kind, first, second = "co-change", change.strip(), also.strip()
        else:
            if not text or not text.strip():
                raise RulesError("say the rule, e.g. tenure rules add \"migrations are applied before deploying\"")
            kind, first, second = "stated", None, None
        words = " ".join(text.split()) if text and text.strip() else rule_text(kind, first or "", second or "")
        self._readable("SELECT * FROM rules")  # (rules an older tenure kept in plain text are sealed first)
        cipher = self._writing_key(scope)
        key = Mined(kind, first, second).key if first else sealed.stated_key(cipher, words)
        at = self.clock().isoformat()
        with self.db.transaction():
            existing = self.db.rows("SELECT id FROM rules WHERE key = ?", (key,))
            if existing:
                raise RulesError(f"rule {existing[0][0]} says that already: `tenure rules explain {existing[0][0]}`")
            rule_id = self.db.rows(
                """INSERT INTO rules (kind, key, text, sealed, first, second, status, source, created_at, changed_at,
                   scope) VALUES (?, ?, '', ?, ?, ?, 'candidate', ?, ?, ?, ?) RETURNING id""",
                (kind, key, cipher.encrypt(words, sealed.PURPOSE), first, second, author, at, at, scope))[0][0]
            self._event(rule_id, "stated", sealed.STATED_DETAIL, author, scope)
            if not candidate:
                self._set_status(rule_id, "promoted", "stated by a person", author, by_hand=True, scope=scope)
        mined = self.mine() if kind != "stated" else None
        written = self.write_agents_file() if not candidate else None
        added = {"rule": self.describe(rule_id), "agentsFile": written or (mined or {}).get("agentsFile")}
        if scope == "org" and not self.team_database:
            added["note"] = ("kept in this project's own database, marked organisation scope: only this project "
                             "reads it until `tenure team push` carries it to the team database")
        return added

    def _writing_key(self, scope: str) -> sealed.Cipher:
        """The cipher a new rule of `scope` is sealed with: the organisation's is made by its first
        organisation-scope write, and must open the organisation's rules already written."""
        if scope != "org":
            cipher = self.keys(scope, False)
            assert cipher is not None  # (a project's key is made on first use)
            return cipher
        opens = self.sealed_org_rule()
        cipher = self.keys(scope, opens is None)
        if cipher is None:
            raise RulesError(f"the organisation's rules are encrypted with its key, and this process has none: "
                             f"{NO_ORG_KEY}; nothing was written")
        if opens is not None:
            opens(cipher)  # (a wrong key is refused before anything is written)
        return cipher

    def sealed_org_rule(self) -> Callable[[sealed.Cipher], str | None] | None:
        """What opens the first organisation rule sealed with the organisation's key (None: none is); a
        key that does not open it raises. The memories ask it before they make that key."""
        first = self.db.query("SELECT * FROM rules WHERE scope = 'org' AND sealed IS NOT NULL ORDER BY id LIMIT 1")
        return (lambda cipher: sealed.text_of(first[0], cipher)) if first else None

    def _check_scope(self, scope: str, text: str | None, counted: str | None) -> None:
        if scope not in ("project", "org"):
            raise RulesError(f"scope {scope!r} is not one of project, org")
        if scope == "org":
            if counted or not text:
                raise RulesError("an organisation rule is stated in words (episodes, which count orderings and "
                                 "co-changes, are each project's own)")
            try:
                require_organisation(self.root)
            except NoOrganisation as exc:
                raise RulesError(str(exc)) from exc

    def promote(self, rule_id: int, author: str) -> dict:
        return self._by_hand(rule_id, "promoted", author)

    def demote(self, rule_id: int, author: str, reason: str | None = None) -> dict:
        return self._by_hand(rule_id, "demoted", author, reason)

    def _by_hand(self, rule_id: int, status: str, author: str, reason: str | None = None) -> dict:
        with self.db.transaction():
            row = self._row(rule_id)
            if row["status"] == status:
                raise RulesError(f"rule {rule_id} is {status} already")
            self._set_status(rule_id, status, reason or f"by {author}", author, by_hand=True, scope=row["scope"])
        return {"rule": self.describe(rule_id), "agentsFile": self.write_agents_file()}

    def _set_status(self, rule_id: int, status: str, why: str, author: str, by_hand: bool,
                    scope: str = "project") -> None:
        self.db.execute("""UPDATE rules SET status = ?, by_hand = ?, changed_at = ?, successes_at_change = successes,
                           failures_at_change = failures WHERE id = ?""",
                        (status, int(by_hand), self.clock().isoformat(), rule_id))
        self._event(rule_id, status, why, author, scope)

    def _event(self, rule_id: int, event: str, detail: str, author: str, scope: str = "project") -> None:
        self.db.execute("INSERT INTO rule_events (rule_id, at, event, detail, sealed, author)"
                        " VALUES (?, ?, ?, '', ?, ?)",
                        (rule_id, self.clock().isoformat(), event, self._key(scope).encrypt(detail, sealed.EVENT),
                         author))

    def _key(self, scope: str) -> sealed.Cipher:
        """The cipher of a rule's scope, which seals its notes (an organisation's rule: refused without its key)."""
        cipher = self.keys(scope, False)
        if cipher is None:
            raise RulesError(f"the organisation's rules are encrypted with its key, and this process has none: "
                             f"{NO_ORG_KEY}; nothing was written")
        return cipher

    # reading -------------------------------------------------------------------------------------
    def _row(self, rule_id: int) -> dict:
        rows = self.db.query("SELECT * FROM rules WHERE id = ?", (rule_id,))
        if not rows:
            raise RulesError(f"no rule {rule_id}: `tenure rules list` shows them")
        return rows[0]

    def _readable(self, sql: str, params: tuple = ()) -> tuple[list[dict], int]:
        """The rules `sql` selects, as `_public` shows them, and how many of them this process holds no
        key for (organisation rules without the organisation's key: left out)."""
        rows = self.db.query(sql, params)
        if any(sealed.is_plain(r) for r in rows) and sealed.seal_plain(self.db, rows, self.keys):
            rows = self.db.query(sql, params)
        ciphers: dict[str, sealed.Cipher | None] = {}
        shown = []
        for row in rows:
            if row["sealed"] is not None and row["scope"] not in ciphers:
                ciphers[row["scope"]] = self.keys(row["scope"], False)
            text = sealed.text_of(row, ciphers.get(row["scope"]))
            if text is not None:
                shown.append(_public(row, text))
        return shown, len(rows) - len(shown)

    def describe(self, rule_id: int) -> dict:
        self._row(rule_id)  # (no such rule: says so)
        shown, _ = self._readable("SELECT * FROM rules WHERE id = ?", (rule_id,))
        if not shown:
            raise RulesError(f"rule {rule_id} is an organisation rule, encrypted with the organisation's key, and "
                             f"this process has none: {NO_ORG_KEY}")
        return shown[0]

    def list(self, status: str | None = None) -> dict:
        shown, unread = self._readable("SELECT * FROM rules" + (" WHERE status = ?" if status else "") +
                                       " ORDER BY status != 'promoted', status != 'candidate', successes DESC, id",
                                       (status,) if status else ())
        listed = {"rules": shown, "procedures": [
                  {"name": p.name, "tool": p.tool_name, "run": p.run, "when": p.when,
                   **({"notRun": p.not_run} if p.not_run else {})} for p in procedures(self.root)],
                  "thresholds": self.settings.__dict__, "mined": self.last_mined()}
        if unread:
            listed["unread"] = unread
            listed["note"] = _unread_note(unread)
        return listed

    def last_mined(self) -> dict | None:
        """What the last mining read, and which evidence it lacked (None: never mined)."""
        found = get_value(self.db, "procedural_meta", "mined")
        return json.loads(found) if found else None

    def explain(self, rule_id: int) -> dict:
        """A rule with every episode that counts for or against it, and every change it went through."""
        rule = self.describe(rule_id)
        cipher = self._key(rule["scope"])
        evidence = self.db.query("SELECT episode_id, counts_as, times, why, sealed FROM rule_evidence"
                                 " WHERE rule_id = ? ORDER BY counts_as, episode_id", (rule_id,))
        described = self.episodes.describe([e["episode_id"] for e in evidence])
        events = [{"at": e["at"], "event": e["event"], "detail": sealed.note_of(e, "detail", sealed.EVENT, cipher),
                   "author": e["author"]} for e in self.db.query(
                       "SELECT at, event, detail, sealed, author FROM rule_events WHERE rule_id = ? ORDER BY id",
                       (rule_id,))]
        return {"rule": rule, "evidence": [{**described.get(e["episode_id"], {"episode": e["episode_id"]}),
                                            "countsAs": e["counts_as"], "times": e["times"],
                                            "why": sealed.note_of(e, "why", sealed.EVIDENCE, cipher)}
                                           for e in evidence], "events": events}

    def promoted(self) -> list[dict]:
        """The promoted rules this process can read (see `lines` for how many it cannot)."""
        return self._promoted()[0]

    def _promoted(self) -> tuple[list[dict], int]:
        return self._readable("SELECT * FROM rules WHERE status = 'promoted' ORDER BY id")

    def lines(self) -> list[str]:
        """The promoted rules as the instructions show them, each with a one-line reference to its evidence
        (and a last line saying how many organisation rules this process holds no key for)."""
        out = []
        promoted, unread = self._promoted()
        for r in promoted:
            if r["scope"] == "org":
                evidence = f"organisation rule, stated by {r['source']}"
            elif r["kind"] == "stated":
                evidence = f"stated by {r['source']}"
            else:
                evidence = f"{r['successes']} episodes for, {r['failures']} against"
            out.append(f"- {r['text']} (rule {r['id']}: {evidence}; `tenure rules explain {r['id']}`)")
        if unread:
            out.append(f"- ({_unread_note(unread)})")
        return out

    def write_agents_file(self) -> dict:
        """The managed section of `[procedural] agents_file` rewritten; a file tenure must not or cannot
        write is left as it is, and the answer says so (the rules themselves are stored either way)."""
        path = self.root / self.settings.agents_file
        try:
            target = project_path(self.root, self.settings.agents_file, "[procedural] agents_file")
            return {"path": str(path), "changed": agents_md.write(target, self.lines())}
        except (agents_md.AgentsFileError, RefusedWrite, OSError) as exc:
            return {"path": str(path), "changed": False,
                    "error": f"{exc} (the rules are stored; {self.settings.agents_file} was not updated)"}

    # situational procedures ----------------------------------------------------------------------
    def procedures(self) -> list[Procedure]:
        return procedures(self.root)

    def run_procedure(self, name: str, session: str | None = None) -> dict:
        """Run a procedure; when it runs tests and a session is named, its verdict is an outcome of it."""
        procedure = next((p for p in procedures(self.root) if p.name == name), None)
        if procedure is None:
            raise RulesError(f"no procedure {name!r} in tenure.toml ([procedures.{name}] run = … when = …)")
        if procedure.not_run:
            raise RulesError(f"procedure {name!r} {procedure.not_run}")
        result, output = execute(self.root, procedure)
        if session:
            result["recorded"] = self.episodes.record_step(session, procedure.run, output, procedure.name)
        return result


def _unread_note(unread: int) -> str:
    return f"{counted(unread, 'organisation rule')} left out: {NO_ORG_KEY}"


def _public(row: dict, text: str) -> dict:
    total = row["successes"] + row["failures"]
    return {"id": row["id"], "kind": row["kind"], "text": text, "first": row["first"], "second": row["second"],
            "status": row["status"],
            "successes": row["successes"], "failures": row["failures"],
            "agreement": round(row["successes"] / total, 3) if total else None, "source": row["source"],
            "byHand": bool(row["by_hand"]), "created": row["created_at"], "changed": row["changed_at"],
            "scope": row["scope"]}

