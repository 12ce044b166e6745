#pragma once
// A minimal PNG encoder for the heatmap of a large fleet: 8-bit indexed
// colour, stored (uncompressed) deflate blocks, so it needs no zlib and its
// size is exactly known: about width x height bytes.
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ibgpu {

using PngColour = std::array<std::uint8_t, 3>;

// `pixels` holds width x height palette indices, row by row; at most 256
// palette entries. Throws std::invalid_argument on a size mismatch.
std::string indexed_png(std::size_t width, std::size_t height, const std::vector<PngColour>& palette,
                        const std::vector<std::uint8_t>& pixels);

std::uint32_t crc32(std::string_view bytes);
std::string base64(std::string_view bytes);

}  // namespace ibgpu
