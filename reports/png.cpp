#include "reports/png.h"

#include <algorithm>
#include <stdexcept>

namespace ibgpu {

namespace {

void put_u32(std::string& out, std::uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) out += static_cast<char>((v >> shift) & 0xFF);
}

void put_chunk(std::string& out, const char* kind, const std::string& body) {
  put_u32(out, static_cast<std::uint32_t>(body.size()));
  const std::string typed = std::string(kind, 4) + body;
  out += typed;
  put_u32(out, crc32(typed));
}

std::uint32_t adler32(std::string_view bytes) {
  std::uint32_t a = 1, b = 0;
  for (const char c : bytes) {
    a = (a + static_cast<std::uint8_t>(c)) % 65521;
    b = (b + a) % 65521;
  }
  return (b << 16) | a;
}

// zlib stream of stored blocks (RFC 1950/1951): no compression, no library.
std::string zlib_stored(std::string_view raw) {
  std::string out = "\x78\x01";
  std::size_t at = 0;
  do {
    const std::size_t len = std::min<std::size_t>(raw.size() - at, 65535);
    const bool last = at + len == raw.size();
    out += static_cast<char>(last ? 1 : 0);
    out += static_cast<char>(len & 0xFF);
    out += static_cast<char>(len >> 8);
    out += static_cast<char>(~len & 0xFF);
    out += static_cast<char>((~len >> 8) & 0xFF);
    out.append(raw.substr(at, len));
    at += len;
  } while (at < raw.size());
  put_u32(out, adler32(raw));
  return out;
}

}  // namespace

std::uint32_t crc32(std::string_view bytes) {
  static const auto table = [] {
    std::array<std::uint32_t, 256> t{};
    for (std::uint32_t n = 0; n < 256; ++n) {
      std::uint32_t c = n;
      for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      t[n] = c;
    }
    return t;
  }();
  std::uint32_t c = 0xFFFFFFFFu;
  for (const char ch : bytes) c = table[(c ^ static_cast<std::uint8_t>(ch)) & 0xFF] ^ (c >> 8);
  return c ^ 0xFFFFFFFFu;
}

std::string base64(std::string_view bytes) {
  static constexpr char kDigits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  for (std::size_t i = 0; i < bytes.size(); i += 3) {
    std::uint32_t v = static_cast<std::uint32_t>(static_cast<std::uint8_t>(bytes[i])) << 16;
    if (i + 1 < bytes.size()) v |= static_cast<std::uint32_t>(static_cast<std::uint8_t>(bytes[i + 1])) << 8;
    if (i + 2 < bytes.size()) v |= static_cast<std::uint8_t>(bytes[i + 2]);
    out += kDigits[(v >> 18) & 63];
    out += kDigits[(v >> 12) & 63];
    out += i + 1 < bytes.size() ? kDigits[(v >> 6) & 63] : '=';
    out += i + 2 < bytes.size() ? kDigits[v & 63] : '=';
  }
  return out;
}

std::string indexed_png(std::size_t width, std::size_t height, const std::vector<PngColour>& palette,
                        const std::vector<std::uint8_t>& pixels) {
  if (width == 0 || height == 0 || pixels.size() != width * height || palette.empty() || palette.size() > 256)
    throw std::invalid_argument("indexed_png: " + std::to_string(pixels.size()) + " pixels for " +
                                std::to_string(width) + "x" + std::to_string(height) + ", " +
                                std::to_string(palette.size()) + " colours");
  std::string png = "\x89PNG\r\n\x1a\n";
  std::string header;
  put_u32(header, static_cast<std::uint32_t>(width));
  put_u32(header, static_cast<std::uint32_t>(height));
  header += std::string("\x08\x03\x00\x00\x00", 5);  // 8-bit, indexed, deflate, adaptive filters, no interlace
  put_chunk(png, "IHDR", header);
  std::string colours;
  for (const auto& c : palette) colours.append(reinterpret_cast<const char*>(c.data()), 3);
  put_chunk(png, "PLTE", colours);
  std::string raw;
  raw.reserve((width + 1) * height);
  for (std::size_t y = 0; y < height; ++y) {
    raw += '\0';  // filter: none
    raw.append(reinterpret_cast<const char*>(pixels.data() + y * width), width);
  }
  put_chunk(png, "IDAT", zlib_stored(raw));
  put_chunk(png, "IEND", "");
  return png;
}

}  // namespace ibgpu
