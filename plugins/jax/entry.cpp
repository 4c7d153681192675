#include "jax.hpp"

TRAINER_PLUGIN(trainer::plugins::jax::Jax)
