# What a node gets beside the binary, its profiles and the Slurm recipes (included by CMakeLists.txt
# after those): each part below says what it installs; their sources are under packaging/.

# The Debian package's Maintainer field: -DIBGPU_MAINTAINER="Name <email>"; by default the git
# identity of the checkout that configures the build.
if(NOT DEFINED IBGPU_MAINTAINER)
  set(IBGPU_MAINTAINER_DEFAULT "ibgpu maintainer not set (-DIBGPU_MAINTAINER) <maintainer-not-set@invalid>")
  execute_process(COMMAND git config user.name WORKING_DIRECTORY ${CMAKE_SOURCE_DIR}
                  OUTPUT_VARIABLE git_name OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE git_name_rc)
  execute_process(COMMAND git config user.email WORKING_DIRECTORY ${CMAKE_SOURCE_DIR}
                  OUTPUT_VARIABLE git_email OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE git_email_rc)
  if(git_name_rc EQUAL 0 AND git_email_rc EQUAL 0 AND git_name AND git_email)
    set(IBGPU_MAINTAINER_DEFAULT "${git_name} <${git_email}>")
  endif()
endif()
set(IBGPU_MAINTAINER "${IBGPU_MAINTAINER_DEFAULT}" CACHE STRING "The Debian package's Maintainer: Name <email>")
set(CPACK_PACKAGE_CONTACT "${IBGPU_MAINTAINER}")
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${IBGPU_MAINTAINER}")

# /usr/share/doc/ibgpu/copyright in Debian's machine-readable format, from LICENSE (MIT, which
# Debian calls Expat): the text after its title and copyright lines, each line indented, blank ones ".".
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/LICENSE)
file(STRINGS ${CMAKE_SOURCE_DIR}/LICENSE ibgpu_license_lines)
list(GET ibgpu_license_lines 2 ibgpu_copyright_line)
string(REGEX REPLACE "^Copyright \\(c\\) " "" ibgpu_copyright "${ibgpu_copyright_line}")
list(SUBLIST ibgpu_license_lines 4 -1 ibgpu_license_text)
set(ibgpu_debian_copyright "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: ibgpu

Files: *
Copyright: ${ibgpu_copyright}
License: Expat
")
foreach(line IN LISTS ibgpu_license_text)
  if(line STREQUAL "")
    string(APPEND ibgpu_debian_copyright " .\n")
  else()
    string(APPEND ibgpu_debian_copyright " ${line}\n")
  endif()
endforeach()
file(CONFIGURE OUTPUT ${CMAKE_BINARY_DIR}/debian/copyright CONTENT "${ibgpu_debian_copyright}" @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/debian/copyright DESTINATION ${CMAKE_INSTALL_DOCDIR})

# The man page: help2man over `ibgpu --help` and `--version`, with a SUBCOMMANDS section holding
# each subcommand's --help (ci/setup installs help2man).
find_program(HELP2MAN help2man REQUIRED)
find_program(GZIP gzip REQUIRED)
set(IBGPU_MAN ${CMAKE_BINARY_DIR}/man/ibgpu.1)
add_custom_command(
  OUTPUT ${IBGPU_MAN} ${IBGPU_MAN}.gz
  COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/man
  COMMAND bash ${CMAKE_SOURCE_DIR}/packaging/from_help.sh man-include $<TARGET_FILE:ibgpu> ${IBGPU_MAN}.include
  COMMAND ${HELP2MAN} --no-info --section 1 --version-string ${PROJECT_VERSION}
          --name "check GPU nodes and their RDMA fabric before they join a pool"
          --include ${IBGPU_MAN}.include --output ${IBGPU_MAN} $<TARGET_FILE:ibgpu>
  COMMAND ${GZIP} -9 -n -f -k ${IBGPU_MAN}
  DEPENDS ibgpu ${CMAKE_SOURCE_DIR}/packaging/from_help.sh
  COMMENT "Generating the man page ibgpu.1 from ibgpu --help" VERBATIM)
add_custom_target(ibgpu_man ALL DEPENDS ${IBGPU_MAN}.gz)
install(FILES ${IBGPU_MAN}.gz DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)

# The bash completion: its lists of commands and options come from the binary's help.
set(IBGPU_COMPLETION ${CMAKE_BINARY_DIR}/bash-completion/ibgpu)
add_custom_command(
  OUTPUT ${IBGPU_COMPLETION}
  COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/bash-completion
  COMMAND bash ${CMAKE_SOURCE_DIR}/packaging/from_help.sh completion $<TARGET_FILE:ibgpu>
          ${CMAKE_SOURCE_DIR}/packaging/bash-completion/ibgpu.in ${IBGPU_COMPLETION}
  DEPENDS ibgpu ${CMAKE_SOURCE_DIR}/packaging/from_help.sh ${CMAKE_SOURCE_DIR}/packaging/bash-completion/ibgpu.in
  COMMENT "Generating the bash completion from ibgpu --help" VERBATIM)
add_custom_target(ibgpu_completion ALL DEPENDS ${IBGPU_COMPLETION})
install(FILES ${IBGPU_COMPLETION} DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions)

# The systemd units of the periodic one-node check, under <prefix>/lib/systemd/system (the package:
# /usr/lib/systemd/system). The service names the binary by its path under the prefix in effect when
# installing (CPack installs with /usr), so it is written at install time.
install(FILES packaging/systemd/ibgpu-check.timer DESTINATION lib/systemd/system)
install(CODE "
  set(IBGPU_BINARY \"\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_BINDIR}/ibgpu\")
  set(unit \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/lib/systemd/system/ibgpu-check.service\")
  message(STATUS \"Installing: \${unit}\")
  configure_file(\"${CMAKE_SOURCE_DIR}/packaging/systemd/ibgpu-check.service.in\" \"\${unit}\" @ONLY)
  list(APPEND CMAKE_INSTALL_MANIFEST_FILES \"\${unit}\")
")

# /etc/default/ibgpu, whatever the prefix (the scripts and the service read it there); a Debian
# conffile, so an edited one survives upgrades. `cmake --install` keeps one that is already there.
install(CODE "
  set(conf \"\$ENV{DESTDIR}/etc/default/ibgpu\")
  if(EXISTS \"\${conf}\")
    message(STATUS \"Kept as it is: \${conf}\")
  else()
    file(INSTALL \"${CMAKE_SOURCE_DIR}/packaging/default/ibgpu\" DESTINATION /etc/default)  # under DESTDIR
  endif()
")
file(WRITE ${CMAKE_BINARY_DIR}/debian/conffiles "/etc/default/ibgpu\n")
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA ${CMAKE_BINARY_DIR}/debian/conffiles)
