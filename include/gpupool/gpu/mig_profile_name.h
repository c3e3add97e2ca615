// NVIDIA's MIG profile names, read as mig-parted reads them (go-nvlib
// pkg/nvlib/device/mig_profile.go, parseMigProfile):
//
//   [<c>c.]<g>g.<gb>gb[+<attr>[,<attr>...] | -<attr>[,<attr>...]]
//
//   1g.10gb          GPU instance of 1 slice, 10 GB (nominal)
//   1g.10gb+me       ... with media extensions          (attribute "me")
//   1g.24gb+me.all   ... with every media engine        (attribute "me.all")
//   1g.24gb+gfx      ... with graphics (RTX PRO Blackwell) (attribute "gfx")
//   1g.24gb-me       ... without media engines          (excluded attribute "me")
//   1c.3g.40gb       compute instance of 1 slice inside a 3g.40gb GPU instance
//
// Attributes are letters, digits and inner dots, not starting with a digit,
// each once; '+' and '-' do not mix. Numbers are read as written (0 and
// leading zeros included): whether a name is a profile a GPU has is for the
// catalog to say, not the grammar.
#pragma once

#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace gpupool::gpu {

struct MigProfileName {
  int compute_slices = 0;  // <c>; equals gpu_slices when the name has no "<c>c." part
  int gpu_slices = 0;      // <g>
  int memory_gb = 0;       // <gb>, the nominal size in the name
  std::vector<std::string> attributes;           // after '+', sorted ("gfx", "me", "me.all")
  std::vector<std::string> excluded_attributes;  // after '-', sorted ("me")

  // Two spellings of one profile compare equal ("3c.3g.40gb" == "3g.40gb",
  // "1g.5gb+me,gfx" == "1g.5gb+gfx,me"), as mig-parted matches them.
  bool operator==(const MigProfileName&) const = default;

  // A whole GPU instance (one compute instance spanning it), not a smaller
  // compute instance inside one.
  bool is_gpu_instance() const { return compute_slices == gpu_slices; }
  // No attribute either way: "1g.24gb", not "1g.24gb+gfx" or "1g.24gb-me".
  bool is_plain() const { return attributes.empty() && excluded_attributes.empty(); }
  // The canonical name: "3g.40gb" for "3c.3g.40gb", "1c.3g.40gb" stays,
  // attributes sorted ("1g.5gb+gfx,me").
  std::string canonical() const;
};

// The name read, or why it is none (one sentence, without the name):
// "expected <g>g.<gb>gb or <c>c.<g>g.<gb>gb before the attributes",
// "has both '+' and '-' attributes", "attribute \"1me\" begins with a digit", ...
std::variant<MigProfileName, std::string> parse_mig_profile_name(std::string_view name);

}  // namespace gpupool::gpu
