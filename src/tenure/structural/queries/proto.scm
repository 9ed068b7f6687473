; Protocol Buffers: messages (nested ones too), enums, services and their rpcs, imports. The
; package is the @package. A schema has no calls. Capture conventions: see README.md.

(package (full_ident) @package)

(message (message_name (identifier) @name)) @definition.struct
(enum (enum_name (identifier) @name)) @definition.enum
(service (service_name (identifier) @name)) @definition.interface
(rpc (rpc_name (identifier) @name)) @definition.method
(extend (full_ident) @name) @definition.struct

(import path: (string) @import.module) @import
