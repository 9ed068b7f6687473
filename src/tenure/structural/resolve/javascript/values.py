"""Abstract values, each `(kind, module, name)`: what a name, field, parameter or call may hold.

The module is where the value is defined (or allocated), so another file's analysis is asked about
its fields, returns and bases; the name is a qualname (functions, classes), an allocation
(`"api.get#0"`, the first object literal written in `api.get`), a constant or an outside name.
"""

from __future__ import annotations

from tenure.structural.naming import qualify

Value = tuple[str, str, object]

FUNC = "f"  # a function, method, getter or arrow of the project: (FUNC, module, name) (SAME)
CLASS = "c"  # a class, an object literal bound to a name (its members are its fields), a constructor function
INST = "i"  # an instance of a class (or of a constructor function): (INST, module, class qualname)
PROTO = "P"  # a class's prototype: its methods
OBJECT = "o"  # an object literal: (OBJECT, module, allocation)
ARRAY = "l"  # an array (a literal, or one a declared type `Repo[]` says holds Repo instances)
NAMESPACE = "ns"  # a module's exports: (NAMESPACE, module, "")
MODULE_OBJECT = "mo"  # CommonJS `module`, whose `exports` is what `require` gives
BOUND = "B"  # what `f.bind(...)` returns: fields $target, $this, $args
GENERATOR = "g"  # what calling a generator function returns: (GENERATOR, module, the function's name)
CONST = "k"  # a primitive constant: (CONST, "", value as a property key; null is "null")
SOME = "s"  # a primitive whose value is not known
OUTSIDE = "x"  # something of the runtime or of a package outside the project: (OUTSIDE, "", name)
# What a function's caller passes, in the function's module analysed on its own: (PARAM, module,
# the function's name, (parameter position, property, ...)). What is called or written through
# one is noted (Analysis.param_calls, param_writes) for a caller in another module to replay.
PARAM = "p"

ANY = "*"  # the field of an unknown key (`a[i] = f`, `push`): every read of the object sees it
SOMETHING: Value = (SOME, "", "")
EMPTY: frozenset[Value] = frozenset()

# Kinds whose fields are properties an analysis stores (objects of the program's own making).
HAS_FIELDS = frozenset({FUNC, CLASS, INST, PROTO, OBJECT, ARRAY, NAMESPACE, BOUND})


# A function's name in values is its qualname; where other functions of its file have that qualname too
# (Program.names), the place among them follows SAME (`init\x001`), so each is followed on its own. The
# symbol, and so every edge's target, is the qualname's (`fqn_of`).
SAME = "\x00"


def qualname_of(value: Value) -> str:
    """The qualname of the function, class or instance a value is (of its symbol)."""
    return str(value[2]).partition(SAME)[0]


def fqn_of(value: Value) -> str:
    return qualify(value[1], qualname_of(value))


def key_of(value: Value) -> str | None:
    """The property key a constant stands for (`d[1]` and `d["1"]` are the same property)."""
    if value[0] != CONST:
        return None
    return str(value[2])
