// The plugin's entry point: TRAINER_PLUGIN defines trn_plugin_entry, the one symbol the
// operator looks up. Compiled into the module only (trainer_add_plugin's ENTRY), never into tests.
#include "@NAME@.hpp"

TRAINER_PLUGIN(@IDENT@_plugin::@CLASS@Plugin)
