// Checks over the whole set of objects one CLI command read (render, validate, apply).
#pragma once

#include "core/api/errors.hpp"
#include "core/json/io.hpp"

#include <vector>

namespace trainer::core::cli {

// Errors, each with the document's origin ("a.yaml (document 2)"):
// - an apiVersion whose group the operator serves (the core and built-in groups, the trainer
//   CRDs) with a kind or version it does not serve ("unknown apiVersion/kind \"v1\" \"ConfgMap\"");
//   other groups are cluster state the operator cannot know (a plugin's kinds, any CRD) and pass;
// - two objects with one identity (apiVersion, kind, namespace, name; no namespace = "default"),
//   naming both origins.
// Names are quoted with quoteForError. Linear in the number of objects (a hash set).
Diagnostics checkInputSet(const std::vector<InputDocument>& docs);

}  // namespace trainer::core::cli
