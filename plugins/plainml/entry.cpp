#include "plainml.hpp"

TRAINER_PLUGIN(trainer::plugins::plainml::PlainML)
