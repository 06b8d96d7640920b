/**
 * The most common passwords, lower-cased: the top of widely published leak-frequency lists (keyboard
 * walks, number runs, names, sports, pet names, words with years and digits), plus common long ones
 * (12+ characters, e.g. `password1234`, `qwertyuiop123`) so the check still bites under a 12-character
 * minimum. Written out by hand for this package; kept as one whitespace-separated string so the module
 * stays small and cheap to load, and only split into a Set on first use.
 */
const LIST = `
123456 password 12345678 qwerty 123456789 12345 1234 111111 1234567 dragon 123123 baseball abc123 football
monkey letmein 696969 shadow master 666666 qwertyuiop 123321 mustang 1234567890 michael 654321 pussy
superman 1qaz2wsx 7777777 fuckyou 121212 000000 qazwsx 123qwe killer trustno1 jordan jennifer zxcvbnm asdfgh
hunter buster soccer harley batman andrew tigger sunshine iloveyou fuckme 2000 charlie robert thomas hockey
ranger daniel starwars klaster 112233 george asshole computer michelle jessica pepper 1111 zxcvbn 555555
11111111 131313 freedom 777777 pass fuck maggie 159753 aaaaaa ginger princess joshua cheese amanda summer
love ashley 6969 nicole chelsea biteme matthew access yankees 987654321 dallas austin thunder taylor matrix
william corvette hello martin heather secret fucker merlin diamond 1234qwer gfhjkm hammer silver 222222
88888888 anthony justin test bailey q1w2e3r4t5 patrick internet scooter orange 11111 golfer cookie richard
samantha bigdog guitar jackson whatever mickey chicken sparky snoopy maverick phoenix camaro sexy peanut
morgan welcome falcon cowboy ferrari samsung andrea smokey steelers joseph mercedes dakota arsenal eagles
melissa boomer booboo spider nascar monster tigers yellow xxxxxx 123123123 gateway marina diablo bulldog
qwer1234 compaq purple hardcore banana junior hannah 123654 porsche lakers iceman money cowboys 987654
london tennis 999999 ncc1701 coffee scooby 0000 miller boston q1w2e3r4 fuckoff brandon yamaha chester mother
forever johnny edward 333333 oliver redsox player nikita knight fender barney midnight please brandy chicago
badboy iwantu slayer rangers charles angel flower bigdaddy rabbit wizard bigdick jasper enter rachel chris
steven winner adidas victoria natasha 1q2w3e4r jasmine winter prince panties marine ghbdtn fishing cocacola
casper james 232323 raiders 888888 marlboro gandalf asdfasdf crystal 87654321 12344321 sexsex golden blowme
bigtits 8675309 panther lauren angela bitch spanky thx1138 angels madison winston shannon mike toyota
blowjob jordan23 canada sophie apples dick tiger razz 123abc pokemon qazxsw 55555 qwaszx muffin johnson
murphy cooper jonathan liverpoo david danielle 159357 jackie 1990 123456a 789456 turtle horny abcd1234
scorpion qazwsxedc 101010 butter carlos password1 dennis slipknot qwerty123 booger asdf 1991 black startrek
12341234 cameron newyork rainbow nathan john 1992 rocket viking redskins butthead asdfghjkl 1212 sierra
peaches gemini doctor wilson sandra helpme qwertyui victor florida dolphin pookie captain tucker blue
liverpool theman bandit dolphins maddog packers jaguar lovers nicholas united tiffany maxwell zzzzzz nirvana
jeremy suckit stupid porn monica elephant giants jackass hotdog rosebud success debbie mountain 444444
xxxxxxxx warrior 1q2w3e4r5t q1w2e3 123456q albert metallic lucky azerty 7777 shithead alex bond007 alexis
1111111 samson 5150 willie scorpio bonnie gators benjamin voodoo driver dexter 2112 jason calvin freddy
212121 creative 12345a sydney rush2112 1989 asdfghjk red123 bubba 4815162342 passw0rd trouble gunner happy
fucking gordon legend jessie stella qwert eminem arthur apple nissan bullshit bear america 1qazxsw2 nothing
parker 4444 rebecca qweqwe garfield 01012011 beavis 69696969 jack asdasd december 2222 102030 252525
11223344 magic apollo skippy 315475 girls kitten golf copper braves shelby godzilla beaver fred tomcat
august buddy airborne 1993 1988 lifehack qqqqqq brooklyn animal platinum phantom online xavier darkness
blink182 power fish green 789456123 voyager police travis 12qwaszx heaven snowball lover abcdef 00000
pakistan 007007 walter playboy blazer cricket sniper hooters donkey willow loveme saturn therock redwings
bigboy pumpkin trinity williams tits nintendo digital destiny topgun runner marvin guinness chance bubbles
testing fire november minecraft asdf1234 lasvegas sergey broncos cartman private celtic birdie little cassie
babygirl donald beatles 1313 dickhead family 12121212 school louise gabriel eclipse fluffy 147258369 lol123
explorer beer nelson flyers spencer scott lovely gibson doggie cherry andrey snickers buffalo pantera
metallica member carter qwertyu peter alexande steve bronco paradise goober 5555 samuel montana mexico
dreams michigan cock carolina friends magnum surfer poopoo maximus genius cool vampire lacrosse asd123 aaaa
christin kimberly speedy sharon carmen 111222 kristina sammy racing ou812 sabrina horses 0987654321 qwerty1
pimpin baby stalker enigma 147147 star poohbear boobies 147258 simple bollocks 12345q marcus brian 1987
qweasdzxc drowssap hahaha caroline barbara dave viper drummer action einstein bitches genesis hello1 scotty
friend forest 010203 hotrod google vanessa spitfire badger maryjane friday alaska 1232323q tester jester
jake champion floyd admin administrator root toor guest user login changeme default letmein1 welcome1
welcome123 password12 password123 password1234 password12345 password123456 password2 password3 password01
passwords passpass pass123 pass1234 p@ssw0rd p@ssword passw0rd1 password! password1! password123! qwerty12
qwerty1234 qwerty12345 qwerty123456 qwertyuiop123 qwertyuiop1 qwertyui1 qwert123 qwerty01 qwertz qwertzuiop
asdfghjkl123 asdfgh123 asdf123 zxcvbnm123 zxcvbnm1 zaq12wsx zaq1zaq1 zaq1xsw2 1qaz2wsx3edc 1qazxsw23edc
qazwsxedcrfv qwe123 qwe123qwe 123qweasd 123qweasdzxc qweasd qweasd123 qweasdzxc123 1q2w3e 1q2w3e4r5t6y
1q2w3e4r5t6y7u8i q1w2e3r4t5y6 a1b2c3 a1b2c3d4 a1b2c3d4e5 abc12345 abc123456 abcd123 abcde12345 abcdefg
abcdefgh abc123456789 123abc456 aa123456 a123456 a12345 123456b 123456789a 12345678a 1234567a 123456aa
123456abc 1234abcd iloveyou1 iloveyou2 iloveyou123 iloveu iloveyou! ilovegod iloveme iloveyou12 loveyou
love123 lovelove love12 loveme1 sunshine1 princess1 monkey1 monkey123 dragon1 dragon123 shadow1 master1
master123 football1 baseball1 superman1 batman1 michael1 jordan1 charlie1 soccer1 hockey1 killer1 hunter1
hunter2 trustno2 freedom1 whatever1 ginger1 summer1 purple1 jesus jesus1 god godisgood blessed blessing
christ faith angel1 angels1 heaven1 1234561 1234512345 123456123456 123456789012 1234567890123 12345678910
1234567891 123456789123 12345678901 12345678900 123123123123 123321123 123454321 1234554321 123456654321
1122334455 111222333 112233445566 11112222 123412341234 13579 135790 24680 246810 2468 1357924680 0123456789
01234567 012345 9876543210 98765 4321 54321 7654321 111 111111111 1111111111 11111111111 111111111111 000
0000000 00000000 0000000000 000000000000 2222222 22222222 3333333 33333333 4444444 44444444 5555555 55555555
6666666 66666666 77777777 8888888 99999999 9999999 999999999 aaaaaaaa aaaaaaaaaa aaaaaaaaaaaa zzzzzzzz
qqqqqqqq asdasdasd asdfasdf1 qweqweqwe 147852 147852369 963852741 741852963 159753456 159951 753951 852456
456789 456123 789123 321654 369258147 1478963 123789 147896325 14789632 1qaz1qaz 2wsx3edc 1qaz2wsx3edc4rfv
zxcv1234 zxcvbnm12345 asdfghjkl1 qwertyuiopasdfghjkl mnbvcxz poiuytrewq lkjhgfdsa ytrewq asdzxc qazwsx123
qazwsx1 zxc123 zxcasdqwe asdqwe123 1a2b3c4d 1a2b3c a1s2d3f4 q1w2e3r4t5y6u7 1qa2ws3ed 5201314 520520 woaini
woaini1314 aini1314 iloveyou1314 7758521 7758258 woaiwojia 88888 8888 168168 666888 518518 caonima qq123456
a5201314 0123456 nopassword nothing1 secret1 secret123 letmein123 welcome12 welcome1234 welcome2 admin1
admin12 admin123 admin1234 admin12345 adminadmin administrator1 root123 rootroot toor123 test1 test12
test123 test1234 test12345 testtest testing1 testing123 guest123 user123 user1234 demo demo123 temp temp123
temppass changeme1 changeme123 default1 sample master12 login123 access1 access14 oracle sysadmin system
manager postgres mysql webmaster support service office office123 company computer1 internet1 pc123 windows
windows7 windows10 linux ubuntu apple123 samsung1 google1 facebook yahoo hotmail gmail microsoft netflix
spotify instagram twitter youtube amazon myspace myspace1 linkedin skype mypassword mypass mypassword1
yourpassword thepassword newpassword newpass oldpassword password0 password7 password9 password11 password13
password21 password22 password69 password99 password88 passwd passwort motdepasse contrasena senha parola
salasana haslo wachtwoord lozinka jelszo heslo geslo 1password 12password qwertypassword passwordqwerty
passwordpassword letmeinnow opensesame abracadabra sesame hello123 hello1234 helloworld hellokitty hello12
hi123 hithere goodluck goodbye whatsup yesyes nono okok ok123 yes123 blahblah blabla hahaha1 lol lollol
lolol lmao omg omgomg qwerty11 qwerty7 qwerty9 qwerty22 qwerty69 1qwerty qwerty! 123qwerty andrew1 anthony1
ashley1 bailey1 brandon1 buster1 charles1 chelsea1 chris1 daniel1 david1 dennis1 diamond1 edward1 eminem1
george1 hannah1 jasmine1 jennifer1 jessica1 jonathan1 joseph1 joshua1 justin1 lauren1 liverpool1 lovely1
matthew1 melissa1 michelle1 mickey1 nicole1 orange1 patrick1 pepper1 peanut1 qwert1 rainbow1 richard1
robert1 samantha1 secret! silver1 snoopy1 spider1 taylor1 thomas1 tigger1 william1 yankees1 zachary
alexander alexandra allison amber amy andrea1 angelina angelo anna annie antonio april ariana arianna arnold
ashton aubrey audrey austin1 ava barry becky bella ben benny bernard betty beverly billy blake bob bobby
bradley brenda brittany brittney bruce bryan caitlin candy carl carla carlos1 carol carrie casey catherine
cecilia charlotte cheryl chloe christian christina christine christopher cindy claire clara claudia colin
connor courtney craig crystal1 cynthia dallas1 dana daniela darren dean deborah denise derek diana diane
dominic donna doris dorothy douglas dylan eddie edgar eileen elaine elena eleanor elizabeth ella ellen
elliot emily emma eric erica erin esther ethan eugene evan evelyn felix fernando fiona frank franklin gary
gavin gina gloria grace greg gregory hailey harold harry hector helen henry holly hunter12 ian irene isabel
isabella ivan jacob jacqueline james1 jamie jane janet janice jared jeffrey jenny jerry jesse jill jim jimmy
joan joe joel jose josephine joy joyce juan judith julia julian julie june justine karen kate katherine
kathleen kathy katie keith kelly kenneth kevin kim kyle larry laura leah lee leo leon leslie lily linda lisa
logan lois lorenzo louis lucas lucy luis luke lydia madeline mandy marco margaret maria mariah marie marilyn
mario mark marshall martha mary mason megan melanie mia michele miguel mildred mitchell molly monique nancy
naomi natalie nathan1 neil nicolas noah norma olivia oscar pamela patricia paul paula pedro peggy penny
philip phillip phyllis priscilla rachel1 ralph randy ray raymond regina ricardo ricky rita robin rodney
roger ronald rose ruby russell ruth ryan sally sam sandy sara sarah sean sebastian shawn sheila shirley
sofia stephanie stephen stuart susan suzanne sylvia tammy tanya teresa terry theresa tim timothy tina todd
tom tommy tony tracy trevor troy tyler valerie vicky vincent virginia walter1 wanda wendy wesley zoe maxime
natasha1 svetlana tatiana olga oksana irina dmitry alexey andrei sasha masha misha vladimir igor marina1
anastasia ekaterina yulia elena1 daria polina ksenia nikolai pavel roman artem maksim vlad airplane alpha
alpine amazing anaconda apache april1 aquarius archer argentina arizona armani asian aspire atlanta atlantis
autumn avalon avatar aviation awesome babydoll bachelor bahamas ballet bamboo bambam banshee barcelona
baritone barney1 baseball12 basket basketball bastard beach beagle beautiful beauty beckham beetle belinda
benfica berlin bestfriend bigfoot bigmac bigred biker billabong bingo birthday biscuit bishop bismillah
blackjack blacky blaster blessed1 blizzard blonde blondie blue123 blue22 blueberry bluebird blueeyes
bluefish bluesky bluejay bluemoon bmw bobcat bombay boogie booty bootsie boricua boston1 boxer brasil brazil
brenda1 britney bubba1 bubblegum buckeye budlight buddy1 bugs bulldogs bullet bulls bunny burton butterfly
buttercup button cadillac caesar california camera candy1 cannabis canon capricorn captain1 cardinal
carebear carmen1 carrot cassandra castle catcat catdog catfish caterpillar cats celebrity champ changeit
chanel charger charlie2 charmed cheater cheetah cherokee chevy chicken1 chico chivas chocolate chopper
christmas cinderella cinnamon claudia1 clipper clover cobra coco coconut college colorado columbia comet
commander compaq1 concord connie cooki cookie1 cooper1 corona cosmos cougar country courage cowboy1 cowgirl
coyote crazy cream cricket1 cupcake cutie cyclone dakota1 dance dancer dandelion danger darkstar darling
database deadpool death december1 delta denver desert detroit devil diamonds dinosaur disney diving doberman
dodgers dog123 dolphin1 dominique doodle dragonball dragonfly dragons dreamer dublin duck duke dundee
dynamite eagle eagle1 earth easter eclipse1 element elvis emerald empire energy england enter1 entropy
escape europe evolution excalibur express fabulous fairy falcon1 fantasy farmer fashion ferrari1 fiesta
fighter firebird fireman firefly fishing1 flash flipper florida1 flower1 flowers flying football12 fordf150
forest1 formula1 fox foxtrot france frankie freckles freddie freedom2 freeman freestyle friends1 frog
frogger frosty fuckyou1 fuckyou2 gabriel1 galaxy gangster garcia garden gemini1 general georgia ghost
giggles ginger12 gizmo glitter goddess godfather gogogo goldfish golf123 goodgirl goofy gorilla gothic
grandma grandpa graphic green1 greenday gremlin grizzly guitar1 gymnastics hacker halloween hamster happy1
happyday harley1 harmony harvard hawaii hawkeye hearts heather1 hello! hellfire hendrix hermes hero highland
hitman holiday hollywood homer honda honey honeybee hornet horse hotmail1 house houston hummer hunting
hurricane ihateyou icecream iloveme1 imissyou indian indigo infinity inferno inlove isabelle island italia
italy jackjack jaguar1 jamaica january japan jasmine2 jeanette jeep jellybean jessica2 jesus123 jesuschrist
jimmy1 joker jordan12 journey jumper juniper jupiter juventus kangaroo karate katrina kawasaki keeper kenny
kermit killer12 kingdom kingkong kitkat kitty kittycat knicks koala kobe24 lakers1 lambo lancer laptop
lasvegas1 leader leather lebron legolas lemon lemonade leopard letitbe liberty lightning lilly lincoln lion
lionking lizard lobster loser lucky1 lucky7 madonna magic1 magnolia mahalkita malibu mallard mango
manchester mariposa marley marvel master01 matrix1 maverick1 mazda medical memphis mercury mermaid metal
michael2 mickeymouse midnight1 millie mimi minnie mirage misty mohammed money1 money123 monkey12 moon
moonlight moose morpheus mother1 motorola mouse movie muffin1 music mustang1 mylove myself mystery nathalie
naughty nautica navy nemesis neptune network newlife newton nightmare ninja nokia nopass norman october
office1 olivia1 omega onelove orlando oscar1 outlaw oxford pacific paintball pamela1 panda panther1 paper
paris parrot passion patches peace peach pearl pebbles penguin people pepsi perfect phoenix1 piano pickle
picture pineapple pinky pirate pisces pizza planet playstation poison polaris popcorn poppy portugal power1
precious predator pretty prince1 princesa psycho pumpkin1 punkin puppy qazqaz queen quest rabbit1 rachael
radio rainbow2 raptor raven rayray reading rebel redhead redneck reggae remember remington rhino ricardo1
river roadrunner rock rocket1 rocknroll rocky romance romeo rooster rosemary rufus rugby russia sailor
saints salvador sandiego santana santos sapphire sarah1 saturn1 savannah scarface school1 scooby1 scorpion1
scotland scrappy seattle september serenity sexy1 shadow12 shamrock shark shelby1 sherlock shopping shorty
sidney silver12 simpsons skater skyline slipknot1 smile smiley smokey1 snake snickers1 snowflake snowman
soccer12 softball soldier sonic sophie1 southern spanky1 sparkle special speedy1 spencer1 spike spirit
spongebob sports spring sprite stanley starbucks stars steelers1 sterling stinky stormy strawberry student
sugar sunflower sunny sunset superstar surfing swimming sydney1 tangerine tarzan teacher teddy teddybear
telephone tennis1 texas thunder1 tiger1 tigers1 timber tinkerbell titanic toffee tomato toyota1 tractor
transformer treasure trinity1 tristan trouble1 truck trumpet tulips turkey turtle1 tweety twilight unicorn
universe valentine vampire1 vegeta venus vermont victory video vikings violet volcano volleyball warcraft
warriors water weasel website whisky white wildcat william2 windows1 wisdom wolf wolverine wonder woody
xbox360 yankee yellow1 yoda yogibear yourmom zebra zeppelin zombie iloveyou1234 iloveyou12345 iloveyou123456
letmein12345 letmein1234 welcome12345 welcome123456 changeme1234 changeme12345 admin123456 administrator123
passw0rd1234 passw0rd123 p@ssw0rd123 p@ssw0rd1234 p@ssword123 p@ssword1234 password@123 password@1234
password#123 password!123 password1234! password123!@# passwordpassword1 mypassword123 mypassword1234
qwerty123456789 qwertyuiop1234 qwertyuiop12345 qwertyuiop!@#$ qwerty!@# qwerty!@#$ qwe123!@# !qaz2wsx
!qaz@wsx !qaz@wsx#edc 1qaz!qaz 1qaz@wsx 1qaz@wsx3edc qwer!@#$ !@#$%^&* !@#$%^ !@#$%^&*() 1234!@#$ 123!@#
1q2w3e!q@w#e asdfghjkl12345 asdfghjkl1234 zxcvbnm1234 abcdefghijkl abcdefghij abcdefghijklmnop abcdefg123
abcdef123 abcdefgh12 abcd12345678 a1b2c3d4e5f6 a123456789 aa12345678 1234567890abc 1234567890qwerty
1234qwerasdf 1234qwerasdfzxcv qwer1234asdf 12qwaszx12qwaszx football1234 football123 baseball123
baseball1234 superman123 superman1234 batman123 batman1234 princess123 princess1234 sunshine123 sunshine1234
shadow123 michael123 jordan123 charlie123 monkey1234 dragon1234 master1234 starwars1 starwars123
starwars1234 pokemon123 minecraft1 minecraft123 minecraft1234 naruto naruto123 liverpool123 chelsea123
arsenal123 manchesterunited manutd 123456789abc 123456789q 123456789qwe 1234567890q 12345qwert 12345qwerty
1234qwer1234 qwerty123qwerty trustno1trustno1 abc123abc123 qwerty123! password2020 password2021 password2022
password2023 password2024 password2025 password2026 summer2020 summer2021 summer2022 summer2023 summer2024
summer2025 winter2020 winter2021 winter2022 winter2023 winter2024 winter2025 spring2023 spring2024
spring2025 autumn2024 welcome2020 welcome2021 welcome2022 welcome2023 welcome2024 welcome2025 january2024
monday123 monday1234 company123 company1234 companyname letmeinplease correcthorsebatterystaple correcthorse
thisismypassword thisisapassword mysecretpassword supersecret supersecretpassword secretpassword topsecret
ilovemymom ilovemydad ilovemyself iloveyoubaby iloveyousomuch imthebest thebest1 whatever123 nevermind
iamthebest 11111111111111 1234512345123 qazwsxedc123 qazwsxedcrfvtgb zaq1@wsx zaq12wsxcde3 zaq1xsw2cde3
1q2w3e4r5t6y7u8i9o0p q1w2e3r4t5y6u7i8o9p0 1q2w3e4r5t6 0987654321qwerty poiuytrewq123 asdf1234asdf
hello123456 helloworld123 helloworld1 letmein! welcome! welcome@123 welcome#123 admin@123 admin@1234
admin#123 admin!123 root@123 test@123 test@1234 pa$$w0rd pa$$word pa55w0rd pa55word passw0rd! p@$$w0rd
p@55w0rd 1qaz2wsx!@ 1qaz2wsx3edc4rfv5tgb azertyuiop azerty123 azertyuiop123 qwertzuiop123 1234567890123456
12345678901234567890 098765432112345 12345678987654321 987654321123456789 159357159357 147258369147
asdfghjklqwertyuiop qwertyuiopasdfghjklzxcvbnm
`;

let cached: ReadonlySet<string> | undefined;

/**
 * The built-in common-password list as a lower-cased `ReadonlySet`, built on first call and cached.
 *
 * @example
 * getCommonPasswords().has('qwerty123'); // true
 */
export function getCommonPasswords(): ReadonlySet<string> {
  cached ??= new Set(LIST.split(/\s+/).filter((entry) => entry !== ''));
  return cached;
}
