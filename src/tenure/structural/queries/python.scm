; Python: definitions, calls, imports, inheritance. Capture names: see queries/README.md.

(class_definition name: (identifier) @name) @definition.class
(function_definition name: (identifier) @name) @definition.function

(class_definition
  superclasses: (argument_list [(identifier) (attribute)] @name @reference.inherits))

(call function: (identifier) @name) @reference.call
(call function: (attribute object: (_) @receiver attribute: (identifier) @name)) @reference.call

(import_statement name: (dotted_name) @import.module) @import
(import_statement name: (aliased_import name: (dotted_name) @import.module alias: (identifier) @import.alias)) @import
(import_from_statement
  module_name: [(dotted_name) @import.module
                (relative_import (import_prefix) @import.relative (dotted_name)? @import.module)]
  name: (dotted_name) @import.name) @import
(import_from_statement
  module_name: [(dotted_name) @import.module
                (relative_import (import_prefix) @import.relative (dotted_name)? @import.module)]
  name: (aliased_import name: (dotted_name) @import.name alias: (identifier) @import.alias)) @import
(import_from_statement
  module_name: [(dotted_name) @import.module
                (relative_import (import_prefix) @import.relative (dotted_name)? @import.module)]
  (wildcard_import) @import.wildcard) @import
