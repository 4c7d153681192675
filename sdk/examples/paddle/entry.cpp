#include "paddle.hpp"

TRAINER_PLUGIN(example::paddle::PaddlePlugin)
